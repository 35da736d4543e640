import type { JobWorker } from "../jobs/job-definition";
import { deliverMail } from "../email/deliver-mail";
import { logger } from "../logger";
import type { MailJob } from "../jobs/definitions/mail";

export const mailWorker: JobWorker<MailJob> = {
  handler: async (jobs) => {
    // One failure fails the batch and pg-boss retries all of it: the ones sent already are recorded and skipped.
    for (const job of jobs) {
      try {
        const outcome = await deliverMail(job);
        logger().info({ messageId: job.messageId, kind: job.kind, outcome }, "mail");
      } catch (err) {
        logger().warn(
          { err: err instanceof Error ? err.message : String(err), messageId: job.messageId, kind: job.kind },
          "mail not sent yet; will retry",
        );
        throw err;
      }
    }
  },
};
