import { sql } from "kysely";
import { pool } from "../db/client";
import { databaseAvailability } from "../db/database-availability";
import { kysely } from "../db/kysely";
import { DELIVERY_QUEUE } from "../webhooks/enqueue-event";
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
    const query = sql<{ due: number; scheduled: number; active: number; lag: number | null; backoff: number }>`
      SELECT
        count(*) FILTER (WHERE j.state IN ('created', 'retry') AND j.start_after <= now())::int AS due,
        count(*) FILTER (WHERE j.state IN ('created', 'retry') AND j.start_after > now())::int AS scheduled,
        count(*) FILTER (WHERE j.state = 'active')::int AS active,
        extract(epoch FROM now() - min(j.start_after) FILTER (WHERE j.state IN ('created', 'retry') AND j.start_after <= now()))::float8 AS lag,
        (SELECT count(*)::int FROM "WebhookEndpointHealth" WHERE "backoffUntil" > now()) AS backoff
      FROM pgboss.job j
      WHERE j.name = ${DELIVERY_QUEUE}`.execute(kysely());
    const { rows } = await Promise.race([
      query,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${QUERY_MS} ms`)), QUERY_MS);
      }),
    ]);
    const row = rows[0];
    if (!row) return;
    m.deliveryQueueDepth.set({ state: "due" }, row.due);
    m.deliveryQueueDepth.set({ state: "scheduled" }, row.scheduled);
    m.deliveryQueueDepth.set({ state: "active" }, row.active);
    m.deliveryQueueLag.set(Math.max(0, row.lag ?? 0));
    m.destinationsInBackoff.set(row.backoff);
  } catch (err) {
    logger().warn(
      { err: err instanceof Error ? err.message : String(err) },
      "metrics: the delivery queue could not be read",
    );
  } finally {
    clearTimeout(timer);
  }
}
