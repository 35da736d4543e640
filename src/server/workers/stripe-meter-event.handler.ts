import type { JobWorker } from "../jobs/job-definition";
import { logger } from "../logger";
import { billing } from "../services/billing/billing-strategy";
import { reportMeterEvent } from "../services/billing/report-meter-event";
import type { MeterJob } from "../jobs/definitions/stripe-meter-event";

/** Runs only where completed calls' minutes go to a provider's meter (the billing strategy says). */
export const stripeMeterEventWorker: JobWorker<MeterJob> = {
  enabled: () => billing().reportsToMeter,
  handler: async (jobs) => {
    for (const job of jobs) {
      try {
        await reportMeterEvent(job);
      } catch (err) {
        logger().warn(
          { err: err instanceof Error ? err.message : String(err), callSid: job.callSid },
          "meter event not reported yet; will retry",
        );
        throw err;
      }
    }
  },
};
