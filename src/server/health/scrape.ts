import { sql } from "kysely";
import { pool } from "../db/client";
import { databaseAvailability } from "../db/database-availability";
import { kysely } from "../db/kysely";
import { deliveryQueue } from "../jobs/delivery-queue/postgres-delivery-queue";
import { journalHealth, recentJournalHealth } from "../engine/journal-health";
import { logger } from "../logger";
import { metrics } from "../metrics/metrics";

/** A scrape answers quickly: a database slower than this leaves the shared gauges at their last values. */
const QUERY_MS = 2_000;

/**
 * The gauges read at scrape time: the pool's state, the journal, and the
 * delivery queue's depth, lag and backoffs (one statement, shared by every
 * instance's scrape: the queue is the database's). Then the registry's text.
 */
export async function scrapeMetrics(): Promise<{ contentType: string; body: string }> {
  const m = metrics();
  const p = pool();
  m.dbPool.set({ state: "total" }, p.totalCount);
  m.dbPool.set({ state: "idle" }, p.idleCount);
  m.dbPool.set({ state: "in_use" }, p.totalCount - p.idleCount);
  m.dbPool.set({ state: "waiting" }, p.waitingCount);
  // The journal monitor checks every 5 s; a scrape reuses its result rather than write a probe file itself.
  const [journal] = await Promise.all([recentJournalHealth() ?? journalHealth().catch(() => null), queueGauges()]);
  if (journal) {
    m.journalDepth.set(journal.depth);
    m.journalOldestAge.set(journal.oldestAgeSeconds ?? 0);
  }
  return { contentType: m.registry.contentType, body: await m.registry.metrics() };
}

async function queueGauges(): Promise<void> {
  if (!databaseAvailability().up) return;
  const m = metrics();
  let timer: NodeJS.Timeout | undefined;
  try {
    // The queue's own reading (jobs/delivery-queue/), and the destinations backed off.
    const query = Promise.all([
      deliveryQueue().depth(),
      kysely()
        .selectFrom("WebhookEndpointHealth")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("backoffUntil", ">", sql<Date>`now()`)
        .executeTakeFirstOrThrow(),
    ]);
    const [depth, backoff] = await Promise.race([
      query,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${QUERY_MS} ms`)), QUERY_MS);
      }),
    ]);
    m.deliveryQueueDepth.set({ state: "due" }, depth.due);
    m.deliveryQueueDepth.set({ state: "scheduled" }, depth.scheduled);
    m.deliveryQueueDepth.set({ state: "active" }, depth.active);
    m.deliveryQueueLag.set(depth.lagSeconds);
    m.destinationsInBackoff.set(Number(backoff.n));
  } catch (err) {
    logger().warn(
      { err: err instanceof Error ? err.message : String(err) },
      "metrics: the delivery queue could not be read",
    );
  } finally {
    clearTimeout(timer);
  }
}
