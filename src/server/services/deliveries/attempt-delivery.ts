import { metrics } from "../../metrics/metrics";
import type { Kysely } from "kysely";
import { CallbackRequestError, type CallbackClient } from "../../webhooks/http/callback-http-client";
import { kysely, now, type DB } from "../../db/kysely";
import { sqlTransaction } from "../../db/sql-transaction";
import { settledValues } from "../../jobs/delivery-queue/postgres-delivery-queue";
import { logger } from "../../logger";
import { isEndpointFailure, recordEndpointResult } from "./endpoint-health";
import { exhaustionAlerts, raiseDeliveryExhaustedIn, type ExhaustedDelivery } from "../alerts/delivery-alerts";
import { nextRetry, parseRetryAfter } from "./retry-schedule";
import { signingSecrets } from "../../webhooks/webhook-secrets";
import { webhookHeaders } from "../../webhooks/webhook-signature";
import type { DeliveryStatus } from "@/generated/prisma/enums";
import { traceHeaders, withSpan } from "../../tracing/tracing";
import { listenTransport } from "../../webhooks/listen/listen-hub";

const ATTEMPT_TIMEOUT_MS = 10_000;

/** One attempt of one delivery: the attempt it is (the delivery's attempt count when it was claimed). */
export type AttemptOrder = {
  deliveryId: string;
  expectedAttempt: number;
  /** The W3C traceparent of what queued the delivery, when tracing is on: the attempt's span joins that trace. */
  traceparent?: string;
};
const EXCERPT_BYTES = 1024;

// A delivery runs for every event of every call, beside the engine: one joined read, one write.
function readDelivery(deliveryId: string) {
  return (
    kysely()
      .selectFrom("WebhookDelivery as d")
      .innerJoin("Account as a", "a.id", "d.accountId")
      .leftJoin("WebhookEndpointHealth as h", (j) =>
        j.onRef("h.accountId", "=", "d.accountId").onRef("h.url", "=", "d.url"),
      )
      // A delivery to an account endpoint is signed with that endpoint's secrets (docs/decisions.md §15).
      .leftJoin("WebhookEndpoint as e", "e.id", "d.endpointId")
      // docs/decisions.md §19: a number's `listen`, whose events go to the account's listeners while one is connected.
      .leftJoin("Call as c", (j) => j.onRef("c.callSid", "=", "d.callSid").onRef("c.accountId", "=", "d.accountId"))
      .leftJoin("PhoneNumber as n", "n.id", "c.phoneNumberId")
      .select([
        "d.id",
        "d.accountId",
        "d.status",
        "d.attemptCount",
        "d.cycleAttempts",
        "d.eventId",
        "d.eventType",
        "d.url",
        "d.payload",
        "a.webhookSecretEnc",
        "a.previousWebhookSecretEnc",
        "a.previousWebhookSecretExpiresAt",
        "d.endpointId",
        "e.enabled as endpointEnabled",
        "e.secretEnc as endpointSecretEnc",
        "e.previousSecretEnc as endpointPreviousSecretEnc",
        "e.previousSecretExpiresAt as endpointPreviousSecretExpiresAt",
        "h.consecutiveFailures as endpointFailures",
        "h.backoffUntil as endpointBackoffUntil",
        "n.listen as numberListen",
      ])
      .where("d.id", "=", deliveryId)
      .executeTakeFirst()
  );
}
type DeliveryRow = NonNullable<Awaited<ReturnType<typeof readDelivery>>>;

type AttemptRecord = {
  delivery: DeliveryRow;
  cycleAttempts: number;
  startedAt: Date;
  nextAttemptAt: Date | null;
  status: DeliveryStatus;
  deliveredAt: Date | null;
  statusCode: number | null;
  latencyMs: number;
  excerpt: string | null;
  error: string | null;
};

/**
 * The attempt goes into the log whatever happens; the delivery's state moves
 * only if no other attempt was recorded since we read it (its attempt count),
 * and with it its place in the queue: off it, or due at the next attempt (the
 * same row: a retry makes nothing new). One statement: true when the delivery moved.
 */
async function recordAttempt(db: Kysely<DB>, r: AttemptRecord): Promise<boolean> {
  const { delivery } = r;
  const row = await db
    .with("moved", (q) =>
      q
        .updateTable("WebhookDelivery")
        .set((eb) => ({
          attemptCount: delivery.attemptCount + 1,
          cycleAttempts: r.cycleAttempts,
          lastAttemptAt: r.startedAt,
          nextAttemptAt: r.nextAttemptAt,
          status: r.status,
          deliveredAt: r.deliveredAt ?? eb.ref("deliveredAt"),
          updatedAt: now(),
          ...settledValues(r.nextAttemptAt),
        }))
        .where("id", "=", delivery.id)
        .where("attemptCount", "=", delivery.attemptCount)
        .returning("id"),
    )
    .with("logged", (q) =>
      q.insertInto("WebhookAttempt").values({
        deliveryId: delivery.id,
        attemptedAt: r.startedAt,
        url: delivery.url,
        statusCode: r.statusCode,
        latencyMs: r.latencyMs,
        responseExcerpt: r.excerpt,
        error: r.error,
      }),
    )
    .selectFrom("moved")
    .select((eb) => eb.fn.countAll<string>().as("moved"))
    .executeTakeFirst();
  return Number(row?.moved) === 1;
}

/** Where an attempt would go, for the worker to decide whether it may run now. */
type AttemptTarget = {
  accountId: string;
  url: string;
  endpointBackoffUntil: Date | null;
  /** A fresh cycle after earlier attempts: the customer asked (redeliver, replay), so it probes even a backed-off endpoint. */
  requested: boolean;
};
/** How an attempt went for its endpoint, for the worker's share of slots (workers/delivery-fairness.ts). */
export type AttemptResult = { endpointFailed: boolean; latencyMs: number };
/** Run now (and say when the attempt is over, and how it went), or not now: the worker defers the job. */
type Admission = { release(result?: AttemptResult): void } | null;

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
export function attemptDelivery(job: AttemptOrder, deps: AttemptDeps): Promise<AttemptOutcome> {
  // Tracing on: one span per attempt, in the trace of what queued the event (the job's traceparent).
  return withSpan(
    "webhook delivery attempt",
    {
      parent: job.traceparent,
      attributes: { "routekit.delivery.id": job.deliveryId, "routekit.delivery.attempt": job.expectedAttempt + 1 },
    },
    async (span) => {
      const outcome = await attemptDeliveryUntraced(job, deps);
      span?.setAttribute("routekit.delivery.outcome", outcome);
      return outcome;
    },
  );
}

async function attemptDeliveryUntraced(job: AttemptOrder, deps: AttemptDeps): Promise<AttemptOutcome> {
  const now = deps.now ?? (() => new Date());
  const delivery = await readDelivery(job.deliveryId);
  if (delivery && delivery.status !== "PENDING") {
    // Finished already: off the queue, should anything have left it there, so it is not claimed again.
    await kysely()
      .updateTable("WebhookDelivery")
      .set(settledValues(null))
      .where("id", "=", delivery.id)
      .where("status", "<>", "PENDING")
      .where("runAt", "is not", null)
      .execute();
    return "skipped";
  }
  if (delivery?.status !== "PENDING" || delivery.attemptCount !== job.expectedAttempt) return "skipped";
  const admission = deps.admit
    ? deps.admit({
        accountId: delivery.accountId,
        url: delivery.url,
        endpointBackoffUntil: delivery.endpointBackoffUntil,
        requested: delivery.cycleAttempts === 0 && delivery.attemptCount > 0,
      })
    : undefined;
  if (admission === null) return "deferred";
  let result: AttemptResult | undefined;
  try {
    return await attempt(delivery, deps, now, (r) => {
      result = r;
      // The slot is free once the attempt is recorded; the endpoint's health is written outside it.
      admission?.release(r);
    });
  } finally {
    admission?.release(result);
  }
}

async function attempt(
  delivery: DeliveryRow,
  deps: AttemptDeps,
  now: () => Date,
  answered: (r: AttemptResult) => void,
): Promise<AttemptOutcome> {
  const startedAt = now();
  const secrets = secretsOf(delivery, startedAt);
  if (!secrets) return giveUp(delivery, startedAt, answered);
  // Tracing on: the customer's handler continues the attempt's trace (`traceparent`).
  const headers = {
    ...webhookHeaders({ id: delivery.eventId, body: delivery.payload, secrets, now: startedAt }),
    ...traceHeaders(),
  };
  let statusCode: number | null = null;
  let excerpt: string | null = null;
  let error: string | null = null;
  let retryAfter: number | null = null;
  let latencyMs: number;
  let retryable = true;
  let errorKind: string | null = null;
  // docs/decisions.md §19: a listen number's event (not an account endpoint's) goes to the account's listeners
  // while one is connected, the same bytes and headers; their acknowledgement is the attempt's answer.
  const relay =
    delivery.endpointId === null && delivery.numberListen === true
      ? await listenTransport(delivery.accountId).catch(() => null)
      : null;
  const clock = performance.now();
  try {
    const request = {
      url: delivery.url,
      headers,
      body: delivery.payload,
      timeoutMs: deps.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
      maxResponseBytes: EXCERPT_BYTES,
    };
    const res = relay ? await relay({ ...request, eventType: delivery.eventType }) : await deps.client.send(request);
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

  // From the answer to its record, nothing but arithmetic: the record is the
  // first statement after the answer, so an instance that dies (or a database
  // that stops) after a 2xx has as short a window as can be to send it again.
  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
  // A listener's failure says nothing of the URL's health.
  const endpointFailed = !relay && isEndpointFailure({ statusCode, errorKind });
  const cycleAttempts = delivery.cycleAttempts + 1;
  const decision = ok
    ? null
    : retryable
      ? nextRetry({ attempt: cycleAttempts, status: statusCode, retryAfterSeconds: retryAfter, random: deps.random })
      : { retry: false as const, reason: "not retryable" };
  const finishedAt = now();
  const outcome: AttemptOutcome = ok ? "delivered" : decision?.retry ? "retry-scheduled" : "failed";
  metrics().deliveryAttempts.inc({ outcome: outcome === "retry-scheduled" ? "retry" : outcome });
  const nextAttemptAt = decision?.retry ? new Date(finishedAt.getTime() + decision.delayMs) : null;
  const entry: AttemptRecord = {
    delivery,
    cycleAttempts,
    startedAt,
    nextAttemptAt,
    status: outcome === "delivered" ? "DELIVERED" : outcome === "failed" ? "FAILED" : "PENDING",
    deliveredAt: outcome === "delivered" ? finishedAt : null,
    statusCode,
    latencyMs,
    excerpt,
    error,
  };

  // docs/decisions.md §16: a delivery that gave up after its last attempt is an alert, raised in the transaction
  // that records that attempt (services/alerts/delivery-alerts.ts).
  const exhausted: ExhaustedDelivery | null =
    outcome === "failed" && exhaustionAlerts(delivery)
      ? {
          deliveryId: delivery.id,
          accountId: delivery.accountId,
          eventId: delivery.eventId,
          eventType: delivery.eventType,
          url: delivery.url,
          endpointId: delivery.endpointId,
          payload: delivery.payload,
          attempts: delivery.attemptCount + 1,
          statusCode,
          error,
          at: finishedAt,
        }
      : null;
  // Delivered or a retry: one statement (a retry is the same row, due later). Given up: that statement and,
  // when it is one, the alert, in one transaction.
  const recorded = await recordSurely(entry, async () => {
    if (exhausted)
      return sqlTransaction(async (trx) => {
        if (!(await recordAttempt(trx, entry))) return "skipped" as const;
        await raiseDeliveryExhaustedIn(trx, exhausted);
        return outcome;
      });
    return (await recordAttempt(kysely(), entry)) ? outcome : "skipped";
  });
  answered({ endpointFailed, latencyMs });

  // The endpoint's health is advice to the scheduler, written after the record: losing one update must not fail the attempt.
  if (!relay)
    await recordEndpointResult({
      accountId: delivery.accountId,
      url: delivery.url,
      failed: endpointFailed,
      knownHealthy: !delivery.endpointFailures && !delivery.endpointBackoffUntil,
    }).catch((err: unknown) => logger().warn({ err }, "endpoint health could not be recorded"));
  return recorded;
}

/**
 * The secrets that sign this delivery: its endpoint's (current, and previous within the overlap) for a delivery
 * to an account endpoint, the account's for a number's URL. Null when its endpoint was deleted or disabled since
 * it was queued: nothing more is sent there.
 */
function secretsOf(delivery: DeliveryRow, at: Date): string[] | null {
  if (delivery.endpointId === null) return signingSecrets(delivery, at);
  if (!delivery.endpointSecretEnc || !delivery.endpointEnabled) return null;
  return signingSecrets(
    {
      webhookSecretEnc: delivery.endpointSecretEnc,
      previousWebhookSecretEnc: delivery.endpointPreviousSecretEnc,
      previousWebhookSecretExpiresAt: delivery.endpointPreviousSecretExpiresAt,
    },
    at,
  );
}

/** A delivery whose endpoint is gone or disabled is given up, without a request, and the log says why. */
async function giveUp(delivery: DeliveryRow, at: Date, answered: (r: AttemptResult) => void): Promise<AttemptOutcome> {
  const reason = delivery.endpointSecretEnc ? "endpoint_disabled" : "endpoint_deleted";
  const moved = await recordAttempt(kysely(), {
    delivery,
    cycleAttempts: delivery.cycleAttempts + 1,
    startedAt: at,
    nextAttemptAt: null,
    status: "FAILED",
    deliveredAt: null,
    statusCode: null,
    latencyMs: 0,
    excerpt: null,
    error: `${reason}: the webhook endpoint was ${reason === "endpoint_disabled" ? "disabled" : "deleted"}; nothing was sent`,
  });
  answered({ endpointFailed: false, latencyMs: 0 });
  return moved ? "failed" : "skipped";
}

/** Waits between tries of recording an attempt while the database is away: about 8 s in all, inside the job's 12 s lease. */
const RECORD_RETRY_MS = [250, 500, 1_000, 2_000, 4_000];

/**
 * Records an attempt, trying again while the database is away: a record lost
 * after a 2xx means the event is sent again. A try after an error first looks
 * whether the one before did land (its answer lost, not its work), so the log
 * never holds the same attempt twice.
 */
async function recordSurely(entry: AttemptRecord, record: () => Promise<AttemptOutcome>): Promise<AttemptOutcome> {
  for (let tries = 0; ; tries++) {
    try {
      if (tries > 0) {
        const landed = await attemptLanded(entry);
        if (landed)
          return landed === "moved"
            ? entry.status === "DELIVERED"
              ? "delivered"
              : entry.status === "FAILED"
                ? "failed"
                : "retry-scheduled"
            : "skipped";
      }
      return await record();
    } catch (err) {
      const wait = RECORD_RETRY_MS[tries];
      if (wait === undefined) throw err;
      logger().warn({ err, deliveryId: entry.delivery.id }, "delivery attempt could not be recorded yet; trying again");
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** Whether an attempt's record is in: "moved" when it moved the delivery, "logged" when only logged, null when not there. */
async function attemptLanded(entry: AttemptRecord): Promise<"moved" | "logged" | null> {
  const row = await kysely()
    .selectFrom("WebhookAttempt as a")
    .innerJoin("WebhookDelivery as d", "d.id", "a.deliveryId")
    .select(["d.attemptCount", "d.lastAttemptAt"])
    .where("a.deliveryId", "=", entry.delivery.id)
    .where("a.attemptedAt", "=", entry.startedAt)
    .executeTakeFirst();
  if (!row) return null;
  return row.attemptCount === entry.delivery.attemptCount + 1 &&
    row.lastAttemptAt?.getTime() === entry.startedAt.getTime()
    ? "moved"
    : "logged";
}
