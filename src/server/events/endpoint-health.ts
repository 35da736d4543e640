import type pg from "pg";
import { pool } from "../db/client";
import { cuid } from "../db/cuid";
import { UTC_NOW } from "../db/sql-time";

/**
 * A circuit breaker per endpoint (account + URL), its state in PostgreSQL so
 * every instance sees it: after FAILURE_THRESHOLD failed attempts in a row,
 * attempts to that endpoint wait until `backoffUntil` instead of holding
 * worker slots for 10 s each. Every re-opening doubles the pause, up to
 * MAX_BACKOFF_MS, so an endpoint that stays down costs a probe now and then.
 */
export const FAILURE_THRESHOLD = 5;
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

/**
 * A failure counts only while the breaker is closed: attempts already in
 * flight when it opened fail together with the one that opened it (one
 * outage, not ten), and must not push the pause out to its maximum at once.
 */
const RECORD_FAILURE = `
  INSERT INTO "WebhookEndpointHealth" AS h ("id", "accountId", "url", "consecutiveFailures", "lastFailureAt", "updatedAt")
  VALUES ($1, $2, $3, 1, ${UTC_NOW}, ${UTC_NOW})
  ON CONFLICT ("accountId", "url") DO UPDATE SET
    "consecutiveFailures" = CASE WHEN h."backoffUntil" > ${UTC_NOW} THEN h."consecutiveFailures" ELSE h."consecutiveFailures" + 1 END,
    "lastFailureAt" = ${UTC_NOW},
    "updatedAt" = ${UTC_NOW}
  RETURNING "consecutiveFailures" AS "failures", ("backoffUntil" IS NOT NULL AND "backoffUntil" > ${UTC_NOW}) AS "open"`;
const OPEN = `
  UPDATE "WebhookEndpointHealth" SET "backoffUntil" = ${UTC_NOW} + make_interval(secs => $3::double precision / 1000)
  WHERE "accountId" = $1 AND "url" = $2 AND ("backoffUntil" IS NULL OR "backoffUntil" <= ${UTC_NOW})`;
const RECORD_SUCCESS = `
  UPDATE "WebhookEndpointHealth" SET "consecutiveFailures" = 0, "backoffUntil" = NULL, "updatedAt" = ${UTC_NOW}
  WHERE "accountId" = $1 AND "url" = $2 AND ("consecutiveFailures" > 0 OR "backoffUntil" IS NOT NULL)`;

/** Records one attempt's result for its endpoint. `knownHealthy`: the caller read no failures, so a success writes nothing. */
export async function recordEndpointResult(
  opts: { accountId: string; url: string; failed: boolean; knownHealthy?: boolean },
  client: Pick<pg.ClientBase, "query"> = pool(),
): Promise<void> {
  if (!opts.failed) {
    if (!opts.knownHealthy) await client.query(RECORD_SUCCESS, [opts.accountId, opts.url]);
    return;
  }
  const { rows } = await client.query<{ failures: number; open: boolean }>(RECORD_FAILURE, [cuid(), opts.accountId, opts.url]);
  const row = rows[0];
  if (row && !row.open && row.failures >= FAILURE_THRESHOLD) await client.query(OPEN, [opts.accountId, opts.url, backoffMs(row.failures)]);
}
