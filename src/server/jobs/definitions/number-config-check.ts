import { z } from "zod";
import { defineJob } from "../job-definition";

/** Hourly, once across all instances: verified numbers whose Voice URL at Twilio moved away (alert.number_unconfigured). */
export const numberConfigCheckJob = defineJob({
  name: "number-config-check",
  payload: z.object({}),
  queue: () => ({ retryLimit: 0, expireInSeconds: 900 }),
  cron: "23 * * * *",
});
