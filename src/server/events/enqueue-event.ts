import type pg from "pg";
import type { Prisma } from "@/generated/prisma/client";
import { cuid } from "../db/cuid";
import { pool } from "../db/client";
import { QUEUES, inTransaction, onConnection, sendJob, wakeWorker } from "../jobs/job-queue";
import type { EventEnvelope } from "./event-envelope";

export const DELIVERY_QUEUE = QUEUES.webhookDelivery;
export type DeliveryJob = { deliveryId: string; expectedAttempt: number };

/** Schedules an attempt of a delivery, inside the caller's transaction. */
export async function scheduleAttempt(tx: Prisma.TransactionClient, job: DeliveryJob, startAfter?: Date): Promise<void> {
  await sendJob(DELIVERY_QUEUE, job, { db: inTransaction(tx), ...(startAfter && { startAfter }) });
}

export type Emit = (opts: { accountId: string; url: string; event: EventEnvelope }) => Promise<string>;

const UTC_NOW = `(now() AT TIME ZONE 'UTC')`;
const INSERT_DELIVERY = `
  INSERT INTO "WebhookDelivery" ("id", "accountId", "eventId", "eventType", "callSid", "url", "payload", "nextAttemptAt", "createdAt", "updatedAt")
  VALUES ($1, $2, $3, $4, $5, $6, $7, ${UTC_NOW}, ${UTC_NOW}, ${UTC_NOW})`;

/**
 * Runs `work` in one transaction with an `emit` that records an event's
 * delivery and its job in that same transaction: no event without its state
 * change, no state change without its event. The local worker is woken after
 * the commit, so delivery starts at once.
 *
 * Plain SQL on a pooled connection: the engine's status callbacks run here,
 * and Twilio's budget is better spent on the customer's backend than on an ORM.
 */
export async function transactionWithEvents<T>(work: (client: pg.PoolClient, emit: Emit) => Promise<T>): Promise<T> {
  // Under load a connection can take a while to free up: the pool waits (within
  // Twilio's 15 s) rather than failing a status callback, whose usage would be lost.
  const client = await pool().connect();
  let emitted = 0;
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    const emit: Emit = async ({ accountId, url, event }) => {
      const id = cuid();
      await client.query(INSERT_DELIVERY, [id, accountId, event.id, event.type, event.data.callSid, url, JSON.stringify(event)]);
      await sendJob(DELIVERY_QUEUE, { deliveryId: id, expectedAttempt: 0 } satisfies DeliveryJob, { db: onConnection(client) });
      emitted++;
      return id;
    };
    const result = await work(client, emit);
    await client.query("COMMIT");
    if (emitted) wakeWorker(DELIVERY_QUEUE);
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch((rollbackFailed: unknown) => {
      broken = rollbackFailed instanceof Error ? rollbackFailed : new Error("rollback failed");
    });
    throw err;
  } finally {
    // A connection whose rollback failed is in an unknown state: it is closed, not reused.
    client.release(broken);
  }
}
