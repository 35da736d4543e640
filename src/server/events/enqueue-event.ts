import type pg from "pg";
import type PgBoss from "pg-boss";
import { cuid } from "../db/cuid";
import { UTC_NOW } from "../db/sql-time";
import { sqlTransaction } from "../db/sql-transaction";
import { QUEUES, onConnection, sendJob, wakeWorker } from "../jobs/job-queue";
import type { EventEnvelope } from "./event-envelope";

export const DELIVERY_QUEUE = QUEUES.webhookDelivery;
export type DeliveryJob = { deliveryId: string; expectedAttempt: number };

/** Schedules an attempt of a delivery, inside the caller's transaction (`inTransaction(tx)` or `onConnection(client)`). */
export async function scheduleAttempt(db: PgBoss.Db, job: DeliveryJob, startAfter?: Date): Promise<void> {
  await sendJob(DELIVERY_QUEUE, job, { db, ...(startAfter && { startAfter }) });
}

export type Emit = (opts: { accountId: string; url: string; event: EventEnvelope }) => Promise<string>;

const INSERT_DELIVERY = `
  INSERT INTO "WebhookDelivery" ("id", "accountId", "eventId", "eventType", "callSid", "url", "payload", "nextAttemptAt", "createdAt", "updatedAt")
  VALUES ($1, $2, $3, $4, $5, $6, $7, ${UTC_NOW}, ${UTC_NOW}, ${UTC_NOW})`;

/**
 * Runs `work` in one transaction with an `emit` that records an event's
 * delivery and its job in that same transaction: no event without its state
 * change, no state change without its event. The local worker is woken after
 * the commit, so delivery starts at once.
 */
export async function transactionWithEvents<T>(work: (client: pg.PoolClient, emit: Emit) => Promise<T>): Promise<T> {
  let emitted = 0;
  const result = await sqlTransaction((client) => {
    const emit: Emit = async ({ accountId, url, event }) => {
      const id = cuid();
      await client.query(INSERT_DELIVERY, [id, accountId, event.id, event.type, event.data.callSid, url, JSON.stringify(event)]);
      await scheduleAttempt(onConnection(client), { deliveryId: id, expectedAttempt: 0 });
      emitted++;
      return id;
    };
    return work(client, emit);
  });
  if (emitted) wakeWorker(DELIVERY_QUEUE);
  return result;
}
