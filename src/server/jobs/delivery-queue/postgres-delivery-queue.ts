import { sql, type Expression, type RawBuilder } from "kysely";
import { kysely, now } from "../../db/kysely";
import { remember } from "../../runtime/remember";
import { currentTraceparent } from "../../tracing/tracing";
import type { ClaimedDelivery, ClaimRequest, DeliveryQueue, QueueDepth } from "./delivery-queue";

/**
 * The delivery queue on PostgreSQL, on the `WebhookDelivery` rows themselves (docs/adr/0009-delivery-queue.md).
 * This file owns the rows' queue columns (`queue`, `lane`, `runAt`, `claimedAt`, `traceparent`): other code
 * writes them only through the values below (queuedValues, queuedSelection, requeuedValues, settledValues).
 *
 * - Queued: `runAt` set (due when it is past), `claimedAt` null.
 * - Claimed: `runAt` one lease ahead and `claimedAt` set; renewing moves `runAt` on. A crashed instance's
 *   claims are due again when their lease ends: nothing else reclaims them.
 * - Settled by the attempt's own record (services/deliveries/attempt-delivery.ts): `runAt` null once delivered
 *   or given up, the next attempt's time for a retry (the same row: a retry never makes a second one).
 */

/** A crashed instance's deliveries must run elsewhere within 30 s (docs/decisions.md §8): 12 s after its last renewal. */
const DELIVERY_LEASE_SECONDS = 12;
/** The production queue's name. */
export const DELIVERY_QUEUE = "deliveries";

type Settings = { name: string; leaseSeconds: number };

/**
 * Sets this process's queue before first use: tests run a queue of their own on the server's database, so
 * the server's worker never takes their deliveries (what pg-boss's schema did for its jobs).
 */
export function configureDeliveryQueue(settings: Partial<Settings>): void {
  Object.assign(settingsOf(), settings);
}
function settingsOf(): Settings {
  return remember<Settings>("deliveryQueue.settings", () => ({
    name: DELIVERY_QUEUE,
    leaseSeconds: DELIVERY_LEASE_SECONDS,
  }));
}

/** The lane of a delivery: routekit_lane() (its migration), a short key of one destination of one account. */
function laneOf(accountId: Expression<string> | string, url: Expression<string> | string): RawBuilder<string> {
  return sql<string>`routekit_lane(${accountId}, ${url})`;
}

/** The columns queuedSelection fills, in its order. */
export const QUEUED_COLUMNS = ["queue", "lane", "runAt", "traceparent"] as const;

/**
 * The one definition of a delivery entering the queue: on this process's queue, in its destination's lane, due
 * now, carrying the trace that queued it. The three writers below only change its shape.
 */
function queued(accountId: Expression<string> | string, url: Expression<string> | string) {
  return {
    queue: sql.val(settingsOf().name),
    lane: laneOf(accountId, url),
    runAt: now(),
    traceparent: sql.val(currentTraceparent() ?? null),
  } satisfies Record<(typeof QUEUED_COLUMNS)[number], unknown>;
}

/** The queue columns of a delivery written now and due at once (an INSERT … VALUES). */
export function queuedValues(accountId: string, url: string) {
  return queued(accountId, url);
}

/** The same, as the selection of an INSERT … SELECT whose rows' account and URL are `accountId` and `url`. */
export function queuedSelection(accountId: Expression<string>, url: Expression<string>) {
  const columns: Record<(typeof QUEUED_COLUMNS)[number], RawBuilder<unknown>> = queued(accountId, url);
  return QUEUED_COLUMNS.map((c) => columns[c].as(c));
}

/** The queue columns of a delivery queued again (a redeliver or a replay): due now, on this queue, not claimed. */
export function requeuedValues() {
  return { ...queued(sql.ref("accountId"), sql.ref("url")), claimedAt: null };
}

/** The queue columns an attempt's record writes: due again at `next` (a retry), or off the queue (null). */
export function settledValues(next: Date | null) {
  return { runAt: next, claimedAt: null };
}

const ids = (xs: readonly string[]) => sql`${[...xs]}::text[]`;

class PostgresDeliveryQueue implements DeliveryQueue {
  constructor(private readonly settings: Settings) {}
  get name() {
    return this.settings.name;
  }
  get leaseSeconds() {
    return this.settings.leaseSeconds;
  }

  /**
   * One statement. `lanes` walks the queued rows' lanes through the partial index (one probe per lane, a
   * loose index scan), each with its earliest `runAt`: a lane whose rows are all claimed is due later, so
   * the walk's cost is the number of lanes, never the size of a lane's backlog (a failing customer's
   * hundred thousand due rows cost one probe). The due lanes not held back take turns in a circle, from
   * the one after `after`, and give their earliest rows (read without locks); those are cut to each lane's
   * and each account's room, taken first rows first (each lane's first before any lane's second), and only
   * the chosen are locked (SKIP LOCKED: another instance takes others) and claimed, re-checked under the lock.
   */
  async claim(req: ClaimRequest): Promise<ClaimedDelivery[]> {
    if (req.limit <= 0) return [];
    const q = this.settings.name;
    const rooms = [...req.rooms];
    const shares = [...req.accountRooms];
    const perLane = Math.max(1, Math.min(req.limit, Math.max(req.room, ...rooms.map(([, n]) => n))));
    const fast = ids(req.fastLanes);
    const { rows } = await sql<ClaimedDelivery>`
      WITH RECURSIVE lanes AS (
        (SELECT lane, "runAt" AS due FROM "WebhookDelivery"
          WHERE queue = ${q} AND "runAt" IS NOT NULL ORDER BY queue, lane, "runAt" LIMIT 1)
        UNION ALL
        SELECT n.lane, n.due FROM lanes l CROSS JOIN LATERAL (
          SELECT lane, "runAt" AS due FROM "WebhookDelivery"
          WHERE queue = ${q} AND "runAt" IS NOT NULL AND lane > l.lane ORDER BY queue, lane, "runAt" LIMIT 1
        ) n
      ), due_lanes AS (
        SELECT lane FROM lanes
        WHERE due <= now() AND lane <> ALL(${ids(req.skip)})
          AND (${req.only === null}::boolean OR lane = ANY(${ids(req.only ?? [])}))
        ORDER BY lane <= ${req.after}, lane LIMIT ${req.limit}
      ), candidates AS (
        SELECT c.id, c.lane, c."accountId" AS account, c."runAt", c.lane = ANY(${fast}) AS fast
        FROM due_lanes d CROSS JOIN LATERAL (
          SELECT id, lane, "accountId", "runAt" FROM "WebhookDelivery"
          WHERE queue = ${q} AND lane = d.lane AND "runAt" <= now() ORDER BY queue, lane, "runAt" LIMIT ${perLane}
        ) c
      ), ranked AS (
        SELECT id, account, lane, "runAt", fast, NOT fast AND account = ANY(${ids(req.skipAccounts)}) AS probe,
          row_number() OVER (PARTITION BY lane ORDER BY "runAt") AS ln,
          row_number() OVER (PARTITION BY account, fast ORDER BY "runAt") AS an
        FROM candidates
      ), chosen AS (
        SELECT r.id FROM ranked r
          LEFT JOIN unnest(${ids(rooms.map(([l]) => l))}, ${rooms.map(([, n]) => n)}::int[]) AS room(lane, free)
            ON room.lane = r.lane
          LEFT JOIN unnest(${ids(shares.map(([a]) => a))}, ${shares.map(([, n]) => n)}::int[]) AS share(account, free)
            ON share.account = r.account
        WHERE (r.probe AND r.ln = 1)
          OR (NOT r.probe AND r.ln <= COALESCE(room.free, ${req.room})
            AND (r.fast OR r.an <= COALESCE(share.free, ${req.accountRoom})))
        ORDER BY r.ln, r.lane <= ${req.after}, r.lane LIMIT ${req.limit}
      ), locked AS (
        SELECT id FROM "WebhookDelivery"
        WHERE id = ANY(ARRAY(SELECT id FROM chosen)) AND queue = ${q} AND "runAt" <= now()
        FOR UPDATE SKIP LOCKED
      )
      UPDATE "WebhookDelivery" w
        SET "runAt" = now() + make_interval(secs => ${this.settings.leaseSeconds}), "claimedAt" = now()
      FROM locked WHERE w.id = locked.id
      RETURNING w.id, w."accountId", w.lane, w."attemptCount", w.traceparent`.execute(kysely());
    return rows;
  }

  async putBack(items: readonly { id: string; until: Date }[]): Promise<void> {
    if (!items.length) return;
    await sql`
      UPDATE "WebhookDelivery" w SET "runAt" = t.until, "claimedAt" = NULL
      FROM unnest(${items.map((i) => i.id)}::text[], ${items.map((i) => i.until.toISOString())}::timestamptz[]) AS t(id, until)
      WHERE w.id = t.id AND w."claimedAt" IS NOT NULL`.execute(kysely());
  }

  async renew(claimed: readonly string[]): Promise<number> {
    if (!claimed.length) return 0;
    const result = await kysely()
      .updateTable("WebhookDelivery")
      .set({ runAt: sql`now() + make_interval(secs => ${this.settings.leaseSeconds})` })
      .where("id", "=", (eb) => eb.fn.any(eb.val([...claimed])))
      .where("claimedAt", "is not", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async depth(): Promise<QueueDepth> {
    const row = await kysely()
      .selectFrom("WebhookDelivery")
      .select([
        sql<number>`count(*) FILTER (WHERE "runAt" <= now())::int`.as("due"),
        sql<number>`count(*) FILTER (WHERE "runAt" > now() AND "claimedAt" IS NULL)::int`.as("scheduled"),
        sql<number>`count(*) FILTER (WHERE "runAt" > now() AND "claimedAt" IS NOT NULL)::int`.as("active"),
        sql<number | null>`extract(epoch FROM now() - min("runAt") FILTER (WHERE "runAt" <= now()))::float8`.as("lag"),
      ])
      .where("queue", "=", this.settings.name)
      .where("runAt", "is not", null)
      .executeTakeFirstOrThrow();
    return { due: row.due, scheduled: row.scheduled, active: row.active, lagSeconds: Math.max(0, row.lag ?? 0) };
  }
}

/** This process's delivery queue (runtime/remember.ts), on the settings configureDeliveryQueue gave. */
export function deliveryQueue(): DeliveryQueue {
  return remember("deliveryQueue", () => new PostgresDeliveryQueue(settingsOf()));
}
