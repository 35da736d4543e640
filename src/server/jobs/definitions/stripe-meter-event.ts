import { z } from "zod";
import { defineJob } from "../job-definition";

/** One completed call's billed minutes for Stripe's meter (docs/decisions.md §4), sent in the usage record's transaction. */
export const stripeMeterEventJob = defineJob({
  name: "stripe-meter-event",
  payload: z.object({
    stripeCustomerId: z.string().min(1),
    callSid: z.string().min(1),
    minutes: z.number().int().positive(),
    timestamp: z.number().int(),
  }),
  // Stripe accepts meter events up to 35 days old: retry for about a day, backing off.
  queue: () => ({ retryLimit: 20, retryDelay: 10, retryBackoff: true, expireInSeconds: 60 }),
  work: { batchSize: 10, pollingIntervalSeconds: 2 },
});

export type MeterJob = z.infer<typeof stripeMeterEventJob.payload>;
