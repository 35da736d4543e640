import type { JobWorker } from "../jobs/job-definition";
import { logger } from "../logger";
import { pruneAuditLog } from "../services/audit/prune-audit-log";

export const auditLogPruneWorker: JobWorker<object> = {
  handler: async () => {
    logger().info({ deleted: await pruneAuditLog() }, "pruned audit log entries older than 13 months");
  },
};
