import type { JobWorker } from "../jobs/job-definition";
import { logger } from "../logger";
import { mailUsageThreshold } from "../services/limits/mail-usage-threshold";
import type { UsageThresholdMail } from "../jobs/definitions/usage-threshold-mail";

export const usageThresholdMailWorker: JobWorker<UsageThresholdMail> = {
  handler: async (jobs) => {
    for (const job of jobs) {
      try {
        await mailUsageThreshold(job);
      } catch (err) {
        logger().warn(
          { err: err instanceof Error ? err.message : String(err), accountId: job.accountId, threshold: job.threshold },
          "usage threshold mail not sent yet; will retry",
        );
        throw err;
      }
    }
  },
};
