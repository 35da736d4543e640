import type { JobWorker } from "../job-definition";
import { pruneOldAttempts } from "../../webhooks/delivery/delivery-worker";
import { logger } from "../../logger";

export const webhookAttemptPruneWorker: JobWorker<object> = {
  handler: async () => {
    const deleted = await pruneOldAttempts();
    logger().info({ deleted }, "pruned old webhook attempts");
  },
};
