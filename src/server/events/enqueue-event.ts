import type { Prisma } from "@/generated/prisma/client";
import { db } from "../db/client";
import { QUEUES, inTransaction, sendJob, wakeWorker } from "../jobs/job-queue";
import type { EventEnvelope } from "./event-envelope";

export const DELIVERY_QUEUE = QUEUES.webhookDelivery;
export type DeliveryJob = { deliveryId: string; expectedAttempt: number };

/** Schedules an attempt of a delivery, inside the caller's transaction. */
export async function scheduleAttempt(tx: Prisma.TransactionClient, job: DeliveryJob, startAfter?: Date): Promise<void> {
  await sendJob(DELIVERY_QUEUE, job, { db: inTransaction(tx), ...(startAfter && { startAfter }) });
}

export type Emit = (opts: { accountId: string; url: string; event: EventEnvelope }) => Promise<string>;

/**
 * Runs `work` in one transaction with an `emit` that records an event's
 * delivery and its job in that same transaction: no event without its state
 * change, no state change without its event. The local worker is woken after
 * the commit, so delivery starts at once.
 */
export async function transactionWithEvents<T>(work: (tx: Prisma.TransactionClient, emit: Emit) => Promise<T>): Promise<T> {
  let emitted = 0;
  const result = await db().$transaction(async (tx) => {
    const emit: Emit = async ({ accountId, url, event }) => {
      const delivery = await tx.webhookDelivery.create({
        data: {
          accountId,
          eventId: event.id,
          eventType: event.type,
          callSid: event.data.callSid,
          url,
          payload: JSON.stringify(event),
          nextAttemptAt: new Date(),
        },
        select: { id: true },
      });
      await scheduleAttempt(tx, { deliveryId: delivery.id, expectedAttempt: 0 });
      emitted++;
      return delivery.id;
    };
    return work(tx, emit);
    // Under load a connection can take a while to free up: waiting (within
    // Twilio's 15 s) beats failing a status callback, whose usage would be lost.
  }, { maxWait: 10_000, timeout: 15_000 });
  if (emitted) wakeWorker(DELIVERY_QUEUE);
  return result;
}
