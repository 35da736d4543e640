import { z } from "zod";
import { defineJob } from "../job-definition";

/** Daily, once across all instances: attempts older than the retention leave the delivery log. */
export const webhookAttemptPruneJob = defineJob({
  name: "webhook-attempt-prune",
  payload: z.object({}),
  queue: () => ({}),
  cron: "17 3 * * *",
});
