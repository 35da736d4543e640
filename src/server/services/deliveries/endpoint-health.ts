import { sql, type ExpressionBuilder, type Kysely } from "kysely";
import { kysely, now, type DB } from "../../db/kysely";

/**
 * A circuit breaker per endpoint (account + URL), its state in PostgreSQL so
 * every instance sees it: after FAILURE_THRESHOLD failed attempts in a row,
 * attempts to that endpoint wait until `backoffUntil` instead of holding
 * worker slots for 10 s each. Every re-opening doubles the pause, up to
 * MAX_BACKOFF_MS, so an endpoint that stays down costs a probe now and then.
 */
// docs/decisions.md §22: "A destination is in backoff after 3 consecutive failed attempts" (alert.endpoint_failing says so too).
export const FAILURE_THRESHOLD = 3;
export const BASE_BACKOFF_MS = 30_000;
export const MAX_BACKOFF_MS = 10 * 60_000;

/** What counts against an endpoint: it did not answer, or answered that it is down or overloaded. */
export function isEndpointFailure(outcome: { statusCode: number | null; errorKind: string | null }): boolean {
  if (outcome.statusCode !== null) return outcome.statusCode >= 500 || outcome.statusCode === 429;
  // A URL our policy refuses (invalid, or a blocked address) says nothing about the receiver.
  return outcome.errorKind === "timeout" || outcome.errorKind === "connection" || outcome.errorKind === "dns";
}

/** The pause after `failures` in a row (none below the threshold). */
export function backoffMs(failures: number): number {
  if (failures < FAILURE_THRESHOLD) return 0;
  return Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** Math.min(failures - FAILURE_THRESHOLD, 20));
}

/** Records one attempt's result for its endpoint. `knownHealthy`: the caller read no failures, so a success writes nothing. */
export async function recordEndpointResult(
  opts: { accountId: string; url: string; failed: boolean; knownHealthy?: boolean },
  db: Kysely<DB> = kysely(),
): Promise<void> {
  const endpoint = (eb: ExpressionBuilder<DB, "WebhookEndpointHealth">) =>
    eb.and([eb("accountId", "=", opts.accountId), eb("url", "=", opts.url)]);
  if (!opts.failed) {
    if (opts.knownHealthy) return;
    await db
      .updateTable("WebhookEndpointHealth")
      .set({ consecutiveFailures: 0, backoffUntil: null, updatedAt: now() })
      .where(endpoint)
      .where((eb) => eb.or([eb("consecutiveFailures", ">", 0), eb("backoffUntil", "is not", null)]))
      .execute();
    return;
  }
  // A failure counts only while the breaker is closed: attempts already in
  // flight when it opened fail together with the one that opened it (one
  // outage, not ten), and must not push the pause out to its maximum at once.
  const row = await db
    .insertInto("WebhookEndpointHealth")
    .values({ accountId: opts.accountId, url: opts.url, consecutiveFailures: 1, lastFailureAt: now() })
    .onConflict((oc) =>
      oc.columns(["accountId", "url"]).doUpdateSet((eb) => ({
        consecutiveFailures: eb
          .case()
          .when("WebhookEndpointHealth.backoffUntil", ">", now())
          .then(eb.ref("WebhookEndpointHealth.consecutiveFailures"))
          .else(eb("WebhookEndpointHealth.consecutiveFailures", "+", 1))
          .end(),
        lastFailureAt: now(),
        updatedAt: now(),
      })),
    )
    .returning((eb) => [
      "consecutiveFailures as failures",
      eb.and([eb("backoffUntil", "is not", null), eb("backoffUntil", ">", now())]).as("open"),
    ])
    .executeTakeFirst();
  if (row && !row.open && row.failures >= FAILURE_THRESHOLD) {
    await db
      .updateTable("WebhookEndpointHealth")
      .set({ backoffUntil: sql<Date>`now() + make_interval(secs => ${backoffMs(row.failures) / 1000})` })
      .where(endpoint)
      .where((eb) => eb.or([eb("backoffUntil", "is", null), eb("backoffUntil", "<=", now())]))
      .execute();
  }
}
