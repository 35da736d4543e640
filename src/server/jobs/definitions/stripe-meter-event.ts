import { z } from "zod";
import { billing } from "../../services/billing/billing-strategy";
import { logger } from "../../logger";
import { defineJob } from "../job-definition";

/** One completed call's billed minutes for Stripe's meter (docs/decisions.md §4), sent in the usage record's transaction. */
export const stripeMeterEventJob = defineJob({
  name: "stripe-meter-event",
  payload: z.object({ stripeCustomerId: z.string().min(1), callSid: z.string().min(1), minutes: z.number().int().positive(), timestamp: z.number().int() }),
  // Stripe accepts meter events up to 35 days old: retry for about a day, backing off.
  queue: () => ({ retryLimit: 20, retryDelay: 10, retryBackoff: true, expireInSeconds: 60 }),
  enabled: () => billing().reportsToMeter,
  work: { batchSize: 10, pollingIntervalSeconds: 2 },
  handler: async (jobs) => {
    const { reportMeterEvent } = await import("../../services/billing/report-meter-event");
    for (const job of jobs) {
      try {
        await reportMeterEvent(job);
      } catch (err) {
        logger().warn({ err: err instanceof Error ? err.message : String(err), callSid: job.callSid }, "meter event not reported yet; will retry");
        throw err;
      }
    }
  },
});

export type MeterJob = z.infer<typeof stripeMeterEventJob.payload>;
