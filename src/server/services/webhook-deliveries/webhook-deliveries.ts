import type { Prisma, WebhookAttempt, WebhookDelivery } from "@/generated/prisma/client";
import { AppError } from "../../errors/app-error";
import { db } from "../../db/client";
import { DELIVERY_QUEUE, scheduleAttempt } from "../../events/enqueue-event";
import { inTransaction, wakeWorker } from "../../jobs/job-queue";

type EventTypeName = "call.started" | "call.ended" | "call.error";

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

function deliveryDto(d: WebhookDelivery & { attempts: WebhookAttempt[] }) {
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
  };
}

const latestAttempt = { attempts: { orderBy: { attemptedAt: "desc" }, take: 1 } } satisfies Prisma.WebhookDeliveryInclude;

export async function listDeliveries(opts: {
  accountId: string;
  limit: number;
  offset: number;
  status?: "PENDING" | "DELIVERED" | "FAILED";
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
  return { deliveries: rows.map(deliveryDto), total, limit: opts.limit, offset: opts.offset };
}

export async function getDelivery(opts: { accountId: string; id: string }) {
  const d = await db().webhookDelivery.findFirst({
    where: { id: opts.id, accountId: opts.accountId },
    include: { attempts: { orderBy: { attemptedAt: "desc" } } },
  });
  if (!d) throw new AppError("NOT_FOUND", "No such delivery.");
  return { delivery: { ...deliveryDto(d), payload: JSON.parse(d.payload) as Record<string, unknown>, attempts: d.attempts.map(attemptDto) } };
}

/**
 * Redeliver now, whatever the delivery's state: same event id and body, a
 * fresh signature, and a fresh retry schedule if this attempt fails too.
 */
export async function retryDelivery(opts: { accountId: string; id: string }) {
  await db().$transaction(async (tx) => {
    const d = await tx.webhookDelivery.findFirst({ where: { id: opts.id, accountId: opts.accountId }, select: { id: true, attemptCount: true } });
    if (!d) throw new AppError("NOT_FOUND", "No such delivery.");
    await tx.webhookDelivery.update({ where: { id: d.id }, data: { status: "PENDING", cycleAttempts: 0, nextAttemptAt: new Date() } });
    await scheduleAttempt(inTransaction(tx), { deliveryId: d.id, expectedAttempt: d.attemptCount });
  });
  wakeWorker(DELIVERY_QUEUE);
  return getDelivery(opts);
}
