import type { Prisma, WebhookAttempt, WebhookDelivery } from "@/generated/prisma/client";
import { AppError } from "../../errors/app-error";
import { db } from "../../db/client";
import { now } from "../../db/kysely";
import { sqlTransaction, type SqlTransaction } from "../../db/sql-transaction";
import { DELIVERY_QUEUE, scheduleAttempt } from "../../events/enqueue-event";
import { onTransaction, wakeWorker } from "../../jobs/job-queue";
import type { DeliveryStatus } from "@/generated/prisma/enums";
import type { EventType } from "../../schemas/events";

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
    status: d.status,
    attemptCount: d.attemptCount,
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
    lastAttempt: d.attempts[0] ? attemptDto(d.attempts[0]) : null,
    // Only while the delivery still waits: a delivered or failed one is not held back by it.
    endpointBackoffUntil: d.status === "PENDING" ? (backoffs.get(d.url)?.toISOString() ?? null) : null,
    synchronous: d.synchronous,
    answerUse: d.answerUse,
  };
}

const latestAttempt = { attempts: { orderBy: { attemptedAt: "desc" }, take: 1 } } satisfies Prisma.WebhookDeliveryInclude;

export async function listDeliveries(opts: {
  accountId: string;
  limit: number;
  offset: number;
  status?: DeliveryStatus;
  callSid?: string;
}) {
  const where: Prisma.WebhookDeliveryWhereInput = {
    accountId: opts.accountId,
    ...(opts.status && { status: opts.status }),
    ...(opts.callSid && { callSid: opts.callSid }),
  };
  const [total, rows] = await Promise.all([
    db().webhookDelivery.count({ where }),
    db().webhookDelivery.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: opts.offset,
      take: opts.limit,
      include: latestAttempt,
    }),
  ]);
  const backoffs = await endpointBackoffs(opts.accountId, rows.map((r) => r.url));
  return { deliveries: rows.map((r) => deliveryDto(r, backoffs)), total, limit: opts.limit, offset: opts.offset };
}

export async function getDelivery(opts: { accountId: string; id: string }) {
  const d = await db().webhookDelivery.findFirst({
    where: { id: opts.id, accountId: opts.accountId },
    include: { attempts: { orderBy: { attemptedAt: "desc" } } },
  });
  if (!d) throw new AppError("NOT_FOUND", "No such delivery.");
  const backoffs = await endpointBackoffs(opts.accountId, [d.url]);
  return { delivery: { ...deliveryDto(d, backoffs), payload: JSON.parse(d.payload) as Record<string, unknown>, attempts: d.attempts.map(attemptDto) } };
}

/**
 * Starts a new retry cycle (status PENDING, no attempt yet in it, due now)
 * unless one is already waiting for its first attempt, and schedules its
 * attempt. One statement: of concurrent calls on the same row, PostgreSQL
 * makes the later one wait and re-check the condition against the first
 * one's result, so it matches nothing. `which` narrows the account's
 * deliveries; returns how many moved.
 */
export async function restartCycles(
  trx: SqlTransaction,
  opts: { accountId: string; id?: string; status?: DeliveryStatus; since?: Date },
): Promise<number> {
  let update = trx
    .updateTable("WebhookDelivery")
    .set({ status: "PENDING", cycleAttempts: 0, nextAttemptAt: now(), updatedAt: now() })
    .where("accountId", "=", opts.accountId)
    .where((eb) => eb.not(eb.and([eb("status", "=", "PENDING"), eb("cycleAttempts", "=", 0)])))
    .where("synchronous", "=", false);
  if (opts.id !== undefined) update = update.where("id", "=", opts.id);
  if (opts.status !== undefined) update = update.where("status", "=", opts.status);
  if (opts.since !== undefined) update = update.where("createdAt", ">=", opts.since);
  const moved = await update.returning(["id", "attemptCount"]).execute();
  for (const d of moved) await scheduleAttempt(onTransaction(trx), { deliveryId: d.id, expectedAttempt: d.attemptCount });
  return moved.length;
}

/**
 * Redeliver now, whatever the delivery's state: same event id and body, a
 * fresh signature, and a fresh retry schedule if this attempt fails too.
 * Idempotent (docs/decisions.md §8): while a redelivery (or the first attempt) is
 * still waiting to run, another click schedules nothing and answers the
 * delivery as it is, so two clicks at once send once.
 */
export async function retryDelivery(opts: { accountId: string; id: string }) {
  const restarted = (await sqlTransaction((trx) => restartCycles(trx, { accountId: opts.accountId, id: opts.id }))) > 0;
  if (restarted) wakeWorker(DELIVERY_QUEUE);
  else {
    const d = await db().webhookDelivery.findFirst({ where: { id: opts.id, accountId: opts.accountId }, select: { synchronous: true } });
    // Its answer decided a call that is over: sending it again could decide nothing.
    if (d?.synchronous) throw new AppError("VALIDATION_FAILED", "call.started is sent while Twilio waits for the call's answer; it cannot be redelivered. Use POST /api/webhook-deliveries/test to send a sample.");
  }
  // Not restarted: already waiting to be sent, or not this account's (getDelivery answers 404).
  return getDelivery(opts);
}
