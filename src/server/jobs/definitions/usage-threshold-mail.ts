import { z } from "zod";
import { defineJob } from "../job-definition";

/**
 * Before the durable `mail` job (./mail.ts), the email of a usage threshold crossed (docs/decisions.md §17).
 * Nothing sends it any more; its worker hands jobs still queued in an upgraded database to the mail job.
 * Remove once no deployment can hold one.
 */
export const usageThresholdMailJob = defineJob({
  name: "usage-threshold-mail",
  payload: z.object({
    accountId: z.string().min(1),
    threshold: z.number().int().min(1).max(100),
    monthlyBudget: z.number().min(0),
    spent: z.number().min(0),
    month: z.string().regex(/^\d{4}-\d{2}$/),
  }),
  // An SMTP server that blinks is tried again for about an hour, backing off.
  queue: () => ({ retryLimit: 12, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 }),
  work: { batchSize: 10, pollingIntervalSeconds: 2 },
});

export type UsageThresholdMail = z.infer<typeof usageThresholdMailJob.payload>;
