import { kysely } from "../../db/kysely";
import { AUDIT_LOG_KEPT_MONTHS } from "../../../shared/schemas/audit-log";

/** Rows per DELETE: small enough that no statement holds its locks (or bloats the WAL) for long. */
const PRUNE_BATCH = 5_000;

/** The oldest instant still kept: the same time of day, 13 calendar months back (docs/decisions.md §18). */
function auditLogCutoff(now: Date): Date {
  const cutoff = new Date(now);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - AUDIT_LOG_KEPT_MONTHS);
  return cutoff;
}

/**
 * Deletes the entries older than 13 months in batches on the (createdAt) index, each its own statement, so
 * a first run over a long backlog never blocks the writers of new entries. Returns how many went.
 */
export async function pruneAuditLog(opts: { now?: Date; batch?: number } = {}): Promise<number> {
  const cutoff = auditLogCutoff(opts.now ?? new Date());
  const batch = opts.batch ?? PRUNE_BATCH;
  let deleted = 0;
  for (;;) {
    const result = await kysely()
      .deleteFrom("AuditLogEntry")
      .where("id", "in", (eb) =>
        eb.selectFrom("AuditLogEntry").select("id").where("createdAt", "<", cutoff).limit(batch),
      )
      .executeTakeFirst();
    const n = Number(result.numDeletedRows);
    deleted += n;
    if (n < batch) return deleted;
  }
}
