import type { JobWorker } from "../job-definition";
import { pruneOldAttempts } from "../../events/delivery-worker";
import { logger } from "../../logger";

export const webhookAttemptPruneWorker: JobWorker<object> = {
  handler: async () => {
    const deleted = await pruneOldAttempts();
    logger().info({ deleted }, "pruned old webhook attempts");
  },
};
