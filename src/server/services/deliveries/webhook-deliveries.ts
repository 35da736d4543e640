import type { Prisma, WebhookAttempt, WebhookDelivery } from "@/generated/prisma/client";
import { START_ATTEMPT_ROLES, type StartAttemptRole } from "../../../shared/schemas/enums";
import { AppError } from "../../errors/app-error";
import { db } from "../../db/client";
import { kysely, now } from "../../db/kysely";
import { sql } from "kysely";
import { sqlTransaction, type SqlTransaction } from "../../db/sql-transaction";
import { wakeDeliveryWorker } from "../../webhooks/enqueue-event";
import { requeuedValues } from "../../jobs/delivery-queue/postgres-delivery-queue";
import type { DeliveryStatus } from "@/generated/prisma/enums";
import type { EventType } from "../../../shared/schemas/events";
import {
  DELIVERY_KINDS,
  type DeliveryDestination,
  type DeliveryKind,
} from "../../../shared/schemas/webhook-deliveries";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";
import { DELIVERY_ATTEMPTS_MAX_ITEMS, REPLAY_MAX_DELIVERIES } from "../../../shared/schemas/bounds";

type EventTypeName = EventType;

function attemptDto(a: WebhookAttempt) {
  return {
    id: a.id,
    attemptedAt: a.attemptedAt.toISOString(),
    url: a.url,
    statusCode: a.statusCode,
    latencyMs: a.latencyMs,
    responseExcerpt: a.responseExcerpt,
    error: a.error,
    role: (START_ATTEMPT_ROLES as readonly string[]).includes(a.role ?? "") ? (a.role as StartAttemptRole) : null,
    outcome: a.outcome,
  };
}

/** Endpoints of these deliveries that are backed off now (events/endpoint-health.ts), by URL. */
async function endpointBackoffs(accountId: string, urls: string[]): Promise<Map<string, Date>> {
  if (!urls.length) return new Map();
  const rows = await db().webhookEndpointHealth.findMany({
    where: { accountId, url: { in: [...new Set(urls)] }, backoffUntil: { gt: new Date() } },
    select: { url: true, backoffUntil: true },
  });
  return new Map(rows.map((r) => [r.url, r.backoffUntil!]));
}

function deliveryDto(d: WebhookDelivery & { attempts: WebhookAttempt[] }, backoffs: Map<string, Date>) {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType as EventTypeName,
    callSid: d.callSid,
    url: d.url,
    endpointId: d.endpointId,
    status: d.status,
    attemptCount: d.attemptCount,
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
    lastAttempt: d.attempts[0] ? attemptDto(d.attempts[0]) : null,
    // Only while the delivery still waits: a delivered or failed one is not held back by it.
    endpointBackoffUntil: d.status === "PENDING" ? (backoffs.get(d.url)?.toISOString() ?? null) : null,
    kind: (DELIVERY_KINDS as readonly string[]).includes(d.kind) ? (d.kind as DeliveryKind) : "event",
    synchronous: d.synchronous,
    answerUse: d.answerUse,
  };
}

const latestAttempt = {
  attempts: { orderBy: { attemptedAt: "desc" }, take: 1 },
} satisfies Prisma.WebhookDeliveryInclude;

export async function listDeliveries(opts: {
  accountId: string;
  limit: number;
  offset: number;
  status?: DeliveryStatus;
  callSid?: string;
  endpointId?: string;
  eventType?: EventTypeName;
  phoneNumberId?: string;
  destination?: DeliveryDestination;
  kind?: DeliveryKind;
  since?: string;
  until?: string;
}) {
  // The filters in SQL (a delivery knows its number through its call, so that one is a subquery); the page's
  // rows then load with their latest attempt.
  const k = kysely();
  let q = k.selectFrom("WebhookDelivery").where("accountId", "=", opts.accountId);
  if (opts.status) q = q.where("status", "=", opts.status);
  if (opts.eventType) q = q.where("eventType", "=", opts.eventType);
  if (opts.callSid) q = q.where("callSid", "=", opts.callSid);
  if (opts.endpointId) q = q.where("endpointId", "=", opts.endpointId);
  if (opts.kind) q = q.where("kind", "=", opts.kind);
  if (opts.destination === "endpoint") q = q.where("endpointId", "is not", null);
  if (opts.destination === "number-url") q = q.where("endpointId", "is", null);
  if (opts.since) q = q.where("createdAt", ">=", new Date(opts.since));
  if (opts.until) q = q.where("createdAt", "<", new Date(opts.until));
  if (opts.phoneNumberId)
    q = q.where(
      "callSid",
      "in",
      k
        .selectFrom("Call")
        .select("callSid")
        .where("accountId", "=", opts.accountId)
        .where("phoneNumberId", "=", opts.phoneNumberId),
    );
  const [counted, page] = await Promise.all([
    q.select((eb) => eb.fn.countAll<string>().as("total")).executeTakeFirstOrThrow(),
    q.select("id").orderBy("createdAt", "desc").orderBy("id", "desc").offset(opts.offset).limit(opts.limit).execute(),
  ]);
  const total = Number(counted.total);
  const ids = page.map((r) => r.id);
  const found = ids.length
    ? await db().webhookDelivery.findMany({ where: { id: { in: ids } }, include: latestAttempt })
    : [];
  const byId = new Map(found.map((r) => [r.id, r]));
  const rows = ids.flatMap((id) => byId.get(id) ?? []);
  const backoffs = await endpointBackoffs(
    opts.accountId,
    rows.map((r) => r.url),
  );
  return { deliveries: rows.map((r) => deliveryDto(r, backoffs)), total, limit: opts.limit, offset: opts.offset };
}

export async function getDelivery(opts: { accountId: string; id: string }) {
  const d = await db().webhookDelivery.findFirst({
    where: { id: opts.id, accountId: opts.accountId },
    include: { attempts: { orderBy: { attemptedAt: "desc" }, take: DELIVERY_ATTEMPTS_MAX_ITEMS } },
  });
  if (!d) throw new AppError("NOT_FOUND", "No such delivery.");
  const backoffs = await endpointBackoffs(opts.accountId, [d.url]);
  return {
    delivery: {
      ...deliveryDto(d, backoffs),
      payload: JSON.parse(d.payload) as Record<string, unknown>,
      attempts: d.attempts.map(attemptDto),
    },
  };
}

/** docs/decisions.md §8: a redeliver within this long of the one that restarted a delivery sends nothing more. */
const REDELIVER_WINDOW_SECONDS = 5;
/** docs/decisions.md §20: one replay queues at most this many deliveries. */

/**
 * A new retry cycle (status PENDING, no attempt yet in it, due now), queued again: set by one statement with
 * its condition in its WHERE, so of concurrent calls on a row PostgreSQL makes the later one wait and re-check
 * the condition against the first one's result: the database decides, whatever instance asked.
 */
const restartSet = () =>
  ({ status: "PENDING", cycleAttempts: 0, nextAttemptAt: now(), updatedAt: now(), ...requeuedValues() }) as const;

/**
 * One redeliver: restarts the delivery unless it is already waiting for its
 * first attempt of a cycle (queued or in flight), or a redeliver restarted it
 * less than REDELIVER_WINDOW_SECONDS ago (its attempt may well be done by
 * the time a double click's second request arrives). True when it restarted.
 */
async function redeliverOne(trx: SqlTransaction, opts: { accountId: string; id: string }): Promise<boolean> {
  const moved = await trx
    .updateTable("WebhookDelivery")
    .set({ ...restartSet(), redeliveredAt: now() })
    .where("id", "=", opts.id)
    .where("accountId", "=", opts.accountId)
    .where("synchronous", "=", false)
    .where((eb) => eb.not(eb.and([eb("status", "=", "PENDING"), eb("cycleAttempts", "=", 0)])))
    .where((eb) =>
      eb.or([
        eb("redeliveredAt", "is", null),
        eb("redeliveredAt", "<", sql<Date>`now() - make_interval(secs => ${REDELIVER_WINDOW_SECONDS})`),
      ]),
    )
    .returning("id")
    .execute();
  return moved.length > 0;
}

/**
 * One replay: restarts the account's deliveries with `status` created since
 * `since`, oldest first, at most REPLAY_MAX_DELIVERIES of them. A delivery
 * still queued (PENDING) is never restarted by a replay, so replaying it again
 * neither resets its schedule nor adds attempts (docs/decisions.md §20).
 */
export async function replayMatching(
  trx: SqlTransaction,
  opts: { accountId: string; status: DeliveryStatus; since: Date; endpointId?: string },
): Promise<{ queued: number; more: boolean }> {
  const matching = (q: SqlTransaction) =>
    q
      .selectFrom("WebhookDelivery")
      .select("id")
      .where("accountId", "=", opts.accountId)
      .$if(opts.endpointId !== undefined, (w) => w.where("endpointId", "=", opts.endpointId ?? null))
      .where("status", "=", opts.status)
      .where("status", "<>", "PENDING")
      .where("synchronous", "=", false)
      .where("createdAt", ">=", opts.since);
  const ids = (
    await matching(trx)
      .orderBy("createdAt")
      .orderBy("id")
      .limit(REPLAY_MAX_DELIVERIES + 1)
      .execute()
  ).map((r) => r.id);
  const batch = ids.slice(0, REPLAY_MAX_DELIVERIES);
  if (batch.length === 0) return { queued: 0, more: false };
  const moved = await trx
    .updateTable("WebhookDelivery")
    .set(restartSet())
    .where("accountId", "=", opts.accountId)
    .where((eb) => eb("id", "=", eb.fn.any(eb.val(batch))))
    // Re-checked under the row lock: a concurrent replay or redeliver may have queued some already.
    .where("status", "=", opts.status)
    .where("status", "<>", "PENDING")
    .returning("id")
    .execute();
  return { queued: moved.length, more: ids.length > REPLAY_MAX_DELIVERIES };
}

/**
 * Redeliver now, whatever the delivery's state: same event id and body, a
 * fresh signature, and a fresh retry schedule if this attempt fails too.
 * Idempotent (docs/decisions.md §8): while a redelivery (or the first attempt) is
 * still waiting to run or in flight, and for a few seconds after a
 * redeliver, another click schedules nothing and answers the delivery as it
 * is, so two clicks send once whether they arrive together or apart.
 */
export async function retryDelivery(opts: { accountId: string; id: string; origin: AuditOrigin }) {
  const restarted = await sqlTransaction(async (trx) => {
    const moved = await redeliverOne(trx, opts);
    // A click that scheduled nothing (already queued, or a double click) changed nothing: no entry.
    if (moved)
      await recordAudit(trx, {
        accountId: opts.accountId,
        origin: opts.origin,
        action: "webhook_delivery.retried",
        target: { type: "webhook_delivery", id: opts.id },
      });
    return moved;
  });
  if (restarted) wakeDeliveryWorker();
  else {
    const d = await db().webhookDelivery.findFirst({
      where: { id: opts.id, accountId: opts.accountId },
      select: { synchronous: true, kind: true },
    });
    if (d && d.kind !== "event")
      throw new AppError(
        "VALIDATION_FAILED",
        "A shadow or replay request is sent once and never redelivered (docs/decisions.md §23); replay the call with POST /api/calls/{callSid}/replay.",
      );
    // Its answer decided a call that is over: sending it again could decide nothing.
    if (d?.synchronous)
      throw new AppError(
        "VALIDATION_FAILED",
        "call.started is sent while Twilio waits for the call's answer; it cannot be redelivered. Use POST /api/webhook-deliveries/test to send a sample.",
      );
  }
  // Not restarted: already waiting to be sent, or not this account's (getDelivery answers 404).
  return getDelivery(opts);
}
