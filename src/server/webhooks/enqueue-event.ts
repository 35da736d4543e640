import type PgBoss from "pg-boss";
import { now } from "../db/kysely";
import { sqlTransaction, type SqlTransaction } from "../db/sql-transaction";
import { webhookDeliveryJob, type DeliveryJob } from "../jobs/definitions/webhook-delivery";
import { onTransaction, sendJob, wakeWorker } from "../jobs/job-queue";
import type { EventEnvelope } from "./event-envelope";

export const DELIVERY_QUEUE = webhookDeliveryJob.name;
export type { DeliveryJob };

/** Schedules an attempt of a delivery, inside the caller's transaction (`onTransaction(trx)`). */
export async function scheduleAttempt(db: PgBoss.Db, job: DeliveryJob, startAfter?: Date): Promise<void> {
  await sendJob(webhookDeliveryJob, job, { db, ...(startAfter && { startAfter }) });
}

export type Emit = (opts: { accountId: string; url: string; event: EventEnvelope }) => Promise<string>;

/**
 * Runs `work` in one transaction with an `emit` that records an event's
 * delivery and its job in that same transaction: no event without its state
 * change, no state change without its event. The local worker is woken after
 * the commit, so delivery starts at once.
 */
export async function transactionWithEvents<T>(work: (trx: SqlTransaction, emit: Emit) => Promise<T>): Promise<T> {
  let emitted = 0;
  const result = await sqlTransaction((trx) => {
    const emit: Emit = async ({ accountId, url, event }) => {
      const { id } = await trx
        .insertInto("WebhookDelivery")
        .values({
          accountId,
          eventId: event.id,
          eventType: event.type,
          callSid: event.data.callSid,
          url,
          payload: JSON.stringify(event),
          nextAttemptAt: now(),
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      await scheduleAttempt(onTransaction(trx), { deliveryId: id, expectedAttempt: 0, accountId });
      emitted++;
      return id;
    };
    return work(trx, emit);
  });
  if (emitted) wakeWorker(DELIVERY_QUEUE);
  return result;
}
