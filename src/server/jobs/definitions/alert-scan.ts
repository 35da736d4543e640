import { z } from "zod";
import { defineJob } from "../job-definition";

/**
 * The alert scan (docs/decisions.md §16, services/alerts/scan-alerts.ts): every instance runs it every 15 s
 * on a timer of its own (pg-boss's cron ticks once a minute, too coarse for "within 60 s"); the alert rows
 * keep it to one alert across instances. The queue exists for the registry's sake and holds no jobs.
 */
export const alertScanJob = defineJob({
  name: "alert-scan",
  payload: z.object({}),
  queue: () => ({}),
});
