import { z } from "zod";
import { defineJob } from "../job-definition";

/** Daily, once across all instances: audit log entries older than 13 months are deleted (docs/decisions.md §18). */
export const auditLogPruneJob = defineJob({
  name: "audit-log-prune",
  payload: z.object({}),
  queue: () => ({}),
  cron: "37 3 * * *",
});
