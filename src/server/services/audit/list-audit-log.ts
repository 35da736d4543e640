import { kysely } from "../../db/kysely";
import type {
  AuditAction,
  AuditTargetType,
  TAuditLogEntry,
  TListAuditLogInput,
} from "../../../shared/schemas/audit-log";
import { decodeKeysetCursor, encodeKeysetCursor } from "../pagination/keyset-cursor";

/**
 * GET /api/audit-log (docs/decisions.md §18): the account's entries newest first, one keyset page on the
 * (accountId, createdAt desc, id desc) index; the filters narrow that range. `actor` is a user id or a key
 * prefix: the two never look alike (a prefix starts `rtk_`), so one parameter serves both.
 */
export async function listAuditLog(opts: { accountId: string } & TListAuditLogInput) {
  const after = opts.cursor ? decodeKeysetCursor(opts.cursor) : null;
  const rows = await kysely()
    .selectFrom("AuditLogEntry")
    .selectAll()
    .where("accountId", "=", opts.accountId)
    .$if(opts.action !== undefined, (q) => q.where("action", "=", opts.action!))
    .$if(opts.actor !== undefined, (q) =>
      q.where((eb) => eb.or([eb("actorUserId", "=", opts.actor!), eb("actorKeyPrefix", "=", opts.actor!)])),
    )
    .$if(opts.targetType !== undefined, (q) => q.where("targetType", "=", opts.targetType!))
    .$if(opts.targetId !== undefined, (q) => q.where("targetId", "=", opts.targetId!))
    .$if(opts.since !== undefined, (q) => q.where("createdAt", ">=", new Date(opts.since!)))
    .$if(opts.until !== undefined, (q) => q.where("createdAt", "<", new Date(opts.until!)))
    .$if(after !== null, (q) =>
      q.where((eb) =>
        eb.or([
          eb("createdAt", "<", after!.createdAt),
          eb.and([eb("createdAt", "=", after!.createdAt), eb("id", "<", after!.id)]),
        ]),
      ),
    )
    .orderBy("createdAt", "desc")
    .orderBy("id", "desc")
    .limit(opts.limit + 1)
    .execute();
  const page = rows.slice(0, opts.limit);
  const last = page[page.length - 1];
  return {
    entries: page.map(
      (r): TAuditLogEntry => ({
        id: r.id,
        action: r.action as AuditAction,
        actor: {
          type: r.actorType as TAuditLogEntry["actor"]["type"],
          userId: r.actorUserId,
          email: r.actorEmail,
          keyPrefix: r.actorKeyPrefix,
        },
        target: { type: r.targetType as AuditTargetType, id: r.targetId },
        details: (r.details as Record<string, unknown> | null) ?? null,
        ip: r.ip,
        createdAt: r.createdAt.toISOString(),
      }),
    ),
    nextCursor: rows.length > opts.limit && last ? encodeKeysetCursor(last) : null,
  };
}
