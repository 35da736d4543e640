import type pg from "pg";
import { CallbackRequestError, type CallbackClient } from "../callbacks/callback-http-client";
import { pool } from "../db/client";
import { cuid } from "../db/cuid";
import { UTC_NOW, utcColumn, utcParam } from "../db/sql-time";
import { sqlTransaction } from "../db/sql-transaction";
import { onConnection } from "../jobs/job-queue";
import { nextRetry, parseRetryAfter } from "./retry-schedule";
import { scheduleAttempt, type DeliveryJob } from "./enqueue-event";
import { signingSecrets } from "./webhook-secrets";
import { webhookHeaders } from "./webhook-signature";

export const ATTEMPT_TIMEOUT_MS = 10_000;
export const EXCERPT_BYTES = 1024;

type DeliveryRow = {
  id: string;
  status: "PENDING" | "DELIVERED" | "FAILED";
  attemptCount: number;
  cycleAttempts: number;
  eventId: string;
  url: string;
  payload: string;
  webhookSecretEnc: string;
  previousWebhookSecretEnc: string | null;
  previousWebhookSecretExpiresAt: Date | null;
};

// Plain SQL on the shared pool: a delivery runs for every event of every call, beside the engine.
// Timestamps are written and read as Prisma does (db/sql-time.ts).
const READ_DELIVERY = `
  SELECT d."id", d."status", d."attemptCount", d."cycleAttempts", d."eventId", d."url", d."payload",
    a."webhookSecretEnc", a."previousWebhookSecretEnc",
    ${utcColumn('a."previousWebhookSecretExpiresAt"', "previousWebhookSecretExpiresAt")}
  FROM "WebhookDelivery" d JOIN "Account" a ON a."id" = d."accountId"
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

export type AttemptDeps = { client: CallbackClient; now?: () => Date; random?: () => number; timeoutMs?: number };
export type AttemptOutcome = "delivered" | "retry-scheduled" | "failed" | "skipped";

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

  const startedAt = now();
  const headers = webhookHeaders({ id: delivery.eventId, body: delivery.payload, secrets: signingSecrets(delivery, startedAt), now: startedAt });
  let statusCode: number | null = null;
  let excerpt: string | null = null;
  let error: string | null = null;
  let retryAfter: number | null = null;
  let latencyMs: number;
  let retryable = true;
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
      // A URL our policy now refuses will not get better by waiting.
      retryable = err.kind !== "invalid_url";
    } else {
      error = "internal: the request could not be made";
    }
  }

  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
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
