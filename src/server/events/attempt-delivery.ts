import type pg from "pg";
import { CallbackRequestError, type CallbackClient } from "../callbacks/callback-http-client";
import { pool } from "../db/client";
import { cuid } from "../db/cuid";
import { UTC_NOW, utcColumn, utcParam } from "../db/sql-time";
import { sqlTransaction } from "../db/sql-transaction";
import { onConnection } from "../jobs/job-queue";
import { logger } from "../logger";
import { isEndpointFailure, recordEndpointResult } from "./endpoint-health";
import { nextRetry, parseRetryAfter } from "./retry-schedule";
import { scheduleAttempt, type DeliveryJob } from "./enqueue-event";
import { signingSecrets } from "./webhook-secrets";
import { webhookHeaders } from "./webhook-signature";
import type { DeliveryStatus } from "../../generated/prisma/enums";

export const ATTEMPT_TIMEOUT_MS = 10_000;
export const EXCERPT_BYTES = 1024;

type DeliveryRow = {
  id: string;
  accountId: string;
  status: DeliveryStatus;
  attemptCount: number;
  cycleAttempts: number;
  eventId: string;
  url: string;
  payload: string;
  webhookSecretEnc: string;
  previousWebhookSecretEnc: string | null;
  previousWebhookSecretExpiresAt: Date | null;
  endpointFailures: number | null;
  endpointBackoffUntil: Date | null;
};

// Plain SQL on the shared pool: a delivery runs for every event of every call, beside the engine.
// Timestamps are written and read as Prisma does (db/sql-time.ts).
const READ_DELIVERY = `
  SELECT d."id", d."accountId", d."status", d."attemptCount", d."cycleAttempts", d."eventId", d."url", d."payload",
    a."webhookSecretEnc", a."previousWebhookSecretEnc",
    ${utcColumn('a."previousWebhookSecretExpiresAt"', "previousWebhookSecretExpiresAt")},
    h."consecutiveFailures" AS "endpointFailures", ${utcColumn('h."backoffUntil"', "endpointBackoffUntil")}
  FROM "WebhookDelivery" d JOIN "Account" a ON a."id" = d."accountId"
    LEFT JOIN "WebhookEndpointHealth" h ON h."accountId" = d."accountId" AND h."url" = d."url"
  WHERE d."id" = $1`;

/**
 * The attempt goes into the log whatever happens; the delivery's state moves
 * only if no other attempt was recorded since we read it (its attempt count).
 */
const RECORD_ATTEMPT = `
  WITH moved AS (
    UPDATE "WebhookDelivery" SET "attemptCount" = $3 + 1, "cycleAttempts" = $4, "lastAttemptAt" = ${utcParam(5)},
      "nextAttemptAt" = ${utcParam(6)}, "status" = $7::"DeliveryStatus", "deliveredAt" = COALESCE(${utcParam(8)}, "deliveredAt"),
      "updatedAt" = ${UTC_NOW}
    WHERE "id" = $2 AND "attemptCount" = $3
    RETURNING "id"
  ), logged AS (
    INSERT INTO "WebhookAttempt" ("id", "deliveryId", "attemptedAt", "url", "statusCode", "latencyMs", "responseExcerpt", "error")
    VALUES ($1, $2, ${utcParam(5)}, $9, $10, $11, $12, $13)
  )
  SELECT count(*)::int AS "moved" FROM moved`;

/** Where an attempt would go, for the worker to decide whether it may run now. */
export type AttemptTarget = {
  accountId: string;
  url: string;
  endpointBackoffUntil: Date | null;
  /** A fresh cycle after earlier attempts: the customer asked (redeliver, replay), so it probes even a backed-off endpoint. */
  requested: boolean;
};
/** Run now (and say when the attempt is over), or not now: the worker defers the job. */
export type Admission = { release(): void } | null;

export type AttemptDeps = {
  client: CallbackClient;
  now?: () => Date;
  random?: () => number;
  timeoutMs?: number;
  /** The worker's gate (per-account cap, endpoint back-off); absent, every attempt runs. */
  admit?: (target: AttemptTarget) => Admission;
};
export type AttemptOutcome = "delivered" | "retry-scheduled" | "failed" | "skipped" | "deferred";

/**
 * One attempt of one delivery: sign, POST through the one outbound client,
 * record the attempt and decide what comes next, all of it in one
 * transaction with the next attempt's job. A job whose attempt was already
 * made (a re-run after a crash, or a schedule a manual retry superseded) is
 * skipped, so it never sends twice.
 */
export async function attemptDelivery(job: DeliveryJob, deps: AttemptDeps): Promise<AttemptOutcome> {
  const now = deps.now ?? (() => new Date());
  const delivery = (await pool().query<DeliveryRow>(READ_DELIVERY, [job.deliveryId])).rows[0];
  if (!delivery || delivery.status !== "PENDING" || delivery.attemptCount !== job.expectedAttempt) return "skipped";
  const admission = deps.admit
    ? deps.admit({
        accountId: delivery.accountId,
        url: delivery.url,
        endpointBackoffUntil: delivery.endpointBackoffUntil,
        requested: delivery.cycleAttempts === 0 && delivery.attemptCount > 0,
      })
    : undefined;
  if (admission === null) return "deferred";
  try {
    return await attempt(delivery, deps, now);
  } finally {
    admission?.release();
  }
}

async function attempt(delivery: DeliveryRow, deps: AttemptDeps, now: () => Date): Promise<AttemptOutcome> {
  const startedAt = now();
  const headers = webhookHeaders({ id: delivery.eventId, body: delivery.payload, secrets: signingSecrets(delivery, startedAt), now: startedAt });
  let statusCode: number | null = null;
  let excerpt: string | null = null;
  let error: string | null = null;
  let retryAfter: number | null = null;
  let latencyMs: number;
  let retryable = true;
  let errorKind: string | null = null;
  const clock = performance.now();
  try {
    const res = await deps.client.send({ url: delivery.url, headers, body: delivery.payload, timeoutMs: deps.timeoutMs ?? ATTEMPT_TIMEOUT_MS, maxResponseBytes: EXCERPT_BYTES });
    statusCode = res.status;
    excerpt = res.body;
    latencyMs = Math.round(res.durationMs);
    retryAfter = parseRetryAfter(res.headers["retry-after"], startedAt);
  } catch (err) {
    latencyMs = Math.round(performance.now() - clock);
    if (err instanceof CallbackRequestError) {
      error = `${err.kind}: ${err.message}`;
      errorKind = err.kind;
      // A URL our policy now refuses will not get better by waiting.
      retryable = err.kind !== "invalid_url";
    } else {
      error = "internal: the request could not be made";
    }
  }

  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
  // The endpoint's health is advice to the scheduler: losing one update must not fail the attempt.
  await recordEndpointResult({
    accountId: delivery.accountId,
    url: delivery.url,
    failed: isEndpointFailure({ statusCode, errorKind }),
    knownHealthy: !delivery.endpointFailures && !delivery.endpointBackoffUntil,
  }).catch((err: unknown) => logger().warn({ err }, "endpoint health could not be recorded"));
  const cycleAttempts = delivery.cycleAttempts + 1;
  const decision = ok ? null : retryable ? nextRetry({ attempt: cycleAttempts, status: statusCode, retryAfterSeconds: retryAfter, random: deps.random }) : { retry: false as const, reason: "not retryable" };
  const finishedAt = now();

  const outcome: AttemptOutcome = ok ? "delivered" : decision?.retry ? "retry-scheduled" : "failed";
  const nextAttemptAt = decision?.retry ? new Date(finishedAt.getTime() + decision.delayMs) : null;
  const record = async (client: Pick<pg.ClientBase, "query">) => {
    const { rows } = await client.query<{ moved: number }>(RECORD_ATTEMPT, [
      cuid(),
      delivery.id,
      delivery.attemptCount,
      cycleAttempts,
      startedAt.toISOString(),
      nextAttemptAt?.toISOString() ?? null,
      outcome === "delivered" ? "DELIVERED" : outcome === "failed" ? "FAILED" : "PENDING",
      outcome === "delivered" ? finishedAt.toISOString() : null,
      delivery.url,
      statusCode,
      latencyMs,
      excerpt,
      error,
    ]);
    return rows[0]?.moved === 1;
  };

  // Delivered or given up: one statement. A retry: that statement and the next attempt's job, in one transaction.
  if (!nextAttemptAt) return (await record(pool())) ? outcome : "skipped";
  return sqlTransaction(async (client) => {
    if (!(await record(client))) return "skipped" as const;
    await scheduleAttempt(onConnection(client), { deliveryId: delivery.id, expectedAttempt: delivery.attemptCount + 1 }, nextAttemptAt);
    return outcome;
  });
}
