import { kysely } from "../../db/kysely";
import type { AlertSubjectType, AlertType } from "../../../shared/schemas/alerts";
import { decodeKeysetCursor, encodeKeysetCursor } from "../pagination/keyset-cursor";

/** GET /api/alerts keeps this far back (docs/decisions.md §16). */
const ALERTS_KEPT_DAYS = 30;

/** The account's alerts of the last 30 days, newest first, one keyset page (the (accountId, createdAt desc, id desc) index). */
export async function listAlerts(opts: { accountId: string; limit: number; cursor?: string; now?: Date }) {
  const after = opts.cursor ? decodeKeysetCursor(opts.cursor) : null;
  const since = new Date((opts.now ?? new Date()).getTime() - ALERTS_KEPT_DAYS * 86_400_000);
  const rows = await kysely()
    .selectFrom("Alert")
    .selectAll()
    .where("accountId", "=", opts.accountId)
    .where("createdAt", ">=", since)
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
    alerts: page.map((a) => ({
      id: a.id,
      type: a.type as AlertType,
      subject: {
        type: a.subjectType as AlertSubjectType,
        id: a.subjectId,
        ...(a.subjectUrl && { url: a.subjectUrl }),
      },
      since: a.since.toISOString(),
      details: a.details as Record<string, unknown>,
      howToFix: a.howToFix,
      eventId: a.eventId,
      resolvedAt: a.resolvedAt?.toISOString() ?? null,
      createdAt: a.createdAt.toISOString(),
    })),
    nextCursor: rows.length > opts.limit && last ? encodeKeysetCursor(last) : null,
  };
}

/** The nav badge: alerts raised in the last 24 hours (recoveries not counted: they need nothing done). */
export async function recentAlertCount(opts: { accountId: string; now?: Date }): Promise<{ count: number }> {
  const since = new Date((opts.now ?? new Date()).getTime() - 86_400_000);
  const row = await kysely()
    .selectFrom("Alert")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("accountId", "=", opts.accountId)
    .where("createdAt", ">=", since)
    .where("type", "not in", ["alert.endpoint_recovered", "alert.fallback_rate_recovered"])
    .executeTakeFirstOrThrow();
  return { count: Number(row.n) };
}
