import type { JobWorker } from "../jobs/job-definition";
import { pruneOldAttempts } from "./delivery-worker";
import { logger } from "../logger";
import { pruneSentMail } from "../email/deliver-mail";
import { pruneShadowResults } from "../services/shadow/shadow-report";

export const webhookAttemptPruneWorker: JobWorker<object> = {
  handler: async () => {
    const deleted = await pruneOldAttempts();
    logger().info({ deleted }, "pruned old webhook attempts");
    // The same daily tick drops the durable mail job's old sent-mail records.
    logger().info({ deleted: await pruneSentMail() }, "pruned old sent-mail records");
    // And the shadow reports' rows past their 30 days (docs/decisions.md §23).
    logger().info({ deleted: await pruneShadowResults() }, "pruned old shadow results");
  },
};
