import PgBoss from "pg-boss";
import { CompiledQuery } from "kysely";
import { connectionUrl } from "../db/client";
import type { SqlTransaction } from "../db/sql-transaction";
import { logger } from "../logger";
import { forget, peek, remember } from "../runtime/remember";
import { JOB_DEFINITIONS } from "./definitions";
import { DELIVERY_LEASE_SECONDS } from "./definitions/webhook-delivery";
import type { JobDefinition, QueueTuning } from "./job-definition";

export type { QueueTuning };

/**
 * The durable job queue: pg-boss on the service's own PostgreSQL (the real
 * server or the embedded one), so a job enqueued survives any crash and runs on
 * whichever instance picks it up. One per process (runtime/remember.ts),
 * shared by the custom server (which runs the workers) and the Next.js bundles
 * (which enqueue).
 */
/**
 * pg-boss's maintenance reclaims expired (crashed) jobs at most every
 * MAINTENANCE_INTERVAL_SECONDS across all instances (up to twice that when a
 * timer fires a little early), then retries them after 1-2 s. With the
 * delivery lease (definitions/webhook-delivery.ts), a dead instance's
 * deliveries run elsewhere within 12 + 2 * 4 + 2 + a 1 s poll = 23 s.
 */
export const MAINTENANCE_INTERVAL_SECONDS = 4;

/**
 * Job rows kept (the delivery log is our own tables; pg-boss's rows are only
 * the engine's bookkeeping). At 100 events/s: completed jobs leave the job
 * table after 5 min (about 30,000 rows), the archive drops them 15 min later
 * (about 90,000 rows). Failed jobs (our own failures, after 10 retries) stay a
 * day in the job table, where an operator looks.
 */
export const RETENTION = {
  archiveCompletedAfterSeconds: 300,
  archiveFailedAfterSeconds: 24 * 3600,
  deleteAfterSeconds: 900,
} as const;

/** Errors of two instances creating the same queue at once: the loser tries again and finds the queue there. */
const CREATE_RACE_CODES = new Set(["40P01", "23505", "42P07", "40001", "55P03"]);

async function createQueue(boss: PgBoss, name: string, options: PgBoss.Queue): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await boss.createQueue(name, options);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= 20 || typeof code !== "string" || !CREATE_RACE_CODES.has(code)) throw err;
      logger().info({ queue: name, code, attempt }, "queue creation raced another instance; trying again");
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 200 * Math.min(attempt, 5)));
    }
  }
}

/** Every queue of a job definition, created before the queue is handed out: pg-boss silently drops a job sent to a queue that does not exist yet. */
async function createQueues(boss: PgBoss, tuning: QueueTuning): Promise<PgBoss> {
  // Instances starting together all create every queue: skip the ones there already (no locks taken then).
  const existing = new Map((await boss.getQueues()).map((q) => [q.name, q]));
  for (const job of JOB_DEFINITIONS) {
    const options: PgBoss.Queue = { name: job.name, ...job.queue(tuning) };
    const current = existing.get(job.name);
    if (!current) {
      await createQueue(boss, job.name, options);
      continue;
    }
    // A database from before a policy change (the 12 s delivery lease) keeps its queue: bring it up to date (new jobs take it).
    const drifted = (key: "expireInSeconds" | "retryDelay") =>
      options[key] !== undefined && current[key] !== options[key];
    if (drifted("expireInSeconds") || drifted("retryDelay")) await boss.updateQueue(job.name, options);
  }
  return boss;
}

type Workers = {
  ids: string[];
  batchSize: number;
  requested: number;
  timer: NodeJS.Timeout | null;
  wake?: () => void;
  stop?: () => Promise<void>;
};
type State = {
  boss: PgBoss;
  schema: string;
  leaseSeconds: number;
  ready: Promise<PgBoss>;
  workers: Map<string, Workers>;
  nextWake: number;
};
function state(tuning: QueueTuning = {}): State {
  return remember("jobQueue", () => {
    const schema = tuning.schema ?? "pgboss";
    const boss = new PgBoss({
      connectionString: connectionUrl(),
      max: 5,
      application_name: "routekit-jobs",
      schema,
      maintenanceIntervalSeconds: tuning.maintenanceIntervalSeconds ?? MAINTENANCE_INTERVAL_SECONDS,
      ...RETENTION,
    });
    boss.on("error", reportQueueError);
    return {
      boss,
      schema,
      leaseSeconds: tuning.deliveryLeaseSeconds ?? DELIVERY_LEASE_SECONDS,
      ready: boss.start().then(() => createQueues(boss, tuning)),
      workers: new Map(),
      nextWake: 0,
    };
  });
}

export function jobQueue(tuning?: QueueTuning): Promise<PgBoss> {
  return state(tuning).ready;
}

export function registerWorker(queue: string, workerId: string, batchSize = 1): void {
  const s = state();
  const w = s.workers.get(queue) ?? { ids: [], batchSize, requested: 0, timer: null };
  w.ids.push(workerId);
  s.workers.set(queue, w);
}

/**
 * For a worker that fetches its own jobs: `wake` runs when jobs were just
 * sent to `queue` from this process; `stop` ends it (and waits for what it
 * runs) before the queue stops.
 */
export function registerFetchLoop(queue: string, loop: { wake: () => void; stop: () => Promise<void> }): void {
  const s = state();
  const w = s.workers.get(queue) ?? { ids: [], batchSize: 1, requested: 0, timer: null };
  Object.assign(w, loop);
  s.workers.set(queue, w);
}

/**
 * The delivery lease of this process's queue, and its renewal (pg-boss 10 has
 * no heartbeat of its own): the lease is counted from `started_on`, so moving
 * it to now gives each running job a whole lease again; `retry_count` is
 * unaffected. Jobs no longer active (completed, or expired already) are left
 * alone. Bound to the queue as it is now, so a worker never renews on a
 * queue started after it stopped.
 */
export async function deliveryLease(): Promise<{
  seconds: number;
  renew(queue: string, ids: string[]): Promise<number>;
}> {
  const s = state();
  const boss = await s.ready;
  const schema = `"${s.schema.replaceAll('"', '""')}"`;
  const sql = `WITH renewed AS (UPDATE ${schema}.job SET started_on = now() WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active' RETURNING 1)
    SELECT count(*)::int AS n FROM renewed`;
  return {
    seconds: s.leaseSeconds,
    async renew(queue, ids) {
      if (!ids.length) return 0;
      const { rows } = await boss.getDb().executeSql(sql, [queue, ids]);
      return (rows[0] as { n: number } | undefined)?.n ?? 0;
    },
  };
}

/**
 * What the delivery worker asks of one fetch (delivery-worker.ts decides the numbers). A lane is one
 * destination of one account (the job's `lane`; a job sent before lanes existed counts as its account's
 * one lane). Two caps meet in a claim: each lane's own, and each account's over its lanes not known fast,
 * so a destination that hangs holds no more than its account's share, and takes no slot of the account's
 * fast destinations.
 */
export type ClaimRequest = {
  /** At most this many jobs. */
  limit: number;
  /** Lanes whose jobs stay in the queue this time (at their cap). */
  skip: string[];
  /**
   * Accounts whose slow share is taken: their lanes the worker knows are in `skip` or `fastLanes`; any other
   * (not seen yet) may probe with one job.
   */
  skipAccounts: string[];
  /** Lanes known fast: not counted against, nor held back by, their account's slow share. */
  fastLanes: string[];
  /** When set, only these lanes' jobs (the rest may not take a slot now). */
  only: string[] | null;
  /** Jobs one lane may get in this fetch, by lane; others get `room`. */
  rooms: Map<string, number>;
  room: number;
  /** Jobs of one account's slow lanes in this fetch, by account; others get `accountRoom`. */
  accountRooms: Map<string, number>;
  accountRoom: number;
};

/**
 * The delivery worker's own claim and put-back on pg-boss's job table
 * (pg-boss 10 fetches first-come-first-served and knows nothing of
 * accounts). A claim passes over the jobs of lanes and accounts at their cap inside the
 * query, so those jobs wait in the queue, untouched, until a slot frees;
 * earliest due first (`start_after`, the order of pg-boss's own index). A
 * put-back moves a claimed job's own row to a later time: no new job, its
 * retry count kept (pg-boss counts a retry only when `started_on` is set).
 */
export async function deliveryClaims(queue: string): Promise<{
  claim(req: ClaimRequest): Promise<PgBoss.Job<object>[]>;
  putBack(jobs: { id: string; until: Date }[]): Promise<void>;
}> {
  const s = state();
  const boss = await s.ready;
  const schema = `"${s.schema.replaceAll('"', '""')}"`;
  const account = `COALESCE(data->>'accountId', '')`;
  const lane = `COALESCE(data->>'lane', data->>'accountId', '')`;
  // The candidates are locked (SKIP LOCKED: another instance takes others), cut
  // to each lane's and each account's room, and only the chosen are claimed; the rest are free
  // again when the statement ends. A job without an account is capped after the claim.
  const claimSql = `WITH next AS (
      SELECT id, start_after, ${account} AS account, ${lane} AS lane, ${lane} = ANY($10::text[]) AS fast
      FROM ${schema}.job
      WHERE name = $1 AND state < 'active' AND start_after < now()
        AND ${lane} <> ALL($3::text[])
        AND ($4::text[] IS NULL OR ${lane} = ANY($4::text[]))
      ORDER BY start_after
      LIMIT $5
      FOR UPDATE SKIP LOCKED
    ), ranked AS (
      SELECT id, account, lane, fast, NOT fast AND account = ANY($9::text[]) AS probe, start_after,
        row_number() OVER (PARTITION BY lane ORDER BY start_after) AS ln,
        row_number() OVER (PARTITION BY account, fast ORDER BY start_after) AS an
      FROM next
    ), chosen AS (
      SELECT r.id FROM ranked r
        LEFT JOIN unnest($6::text[], $7::int[]) AS room(lane, free) ON room.lane = r.lane
        LEFT JOIN unnest($11::text[], $12::int[]) AS share(account, free) ON share.account = r.account
      WHERE r.account = ''
        OR (r.probe AND r.ln = 1)
        OR (NOT r.probe AND r.ln <= COALESCE(room.free, $8) AND (r.fast OR r.an <= COALESCE(share.free, $13)))
      ORDER BY r.start_after
      LIMIT $2
    )
    UPDATE ${schema}.job j SET state = 'active', started_on = now(),
      retry_count = CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END
    FROM chosen WHERE j.name = $1 AND j.id = chosen.id
    RETURNING j.id, j.name, j.data, EXTRACT(epoch FROM j.expire_in) AS "expireInSeconds"`;
  const putBackSql = `UPDATE ${schema}.job j SET state = 'created', started_on = NULL, start_after = t.until,
      keep_until = GREATEST(j.keep_until, t.until + (j.keep_until - j.start_after))
    FROM unnest($2::uuid[], $3::timestamptz[]) AS t(id, until)
    WHERE j.name = $1 AND j.id = t.id AND j.state = 'active'`;
  return {
    async claim(req) {
      if (req.limit <= 0) return [];
      const rooms = [...req.rooms];
      const shares = [...req.accountRooms];
      // A few more candidates than wanted, so one lane's run at the head does not leave the fetch short.
      const candidates = Math.min(req.limit * 4, 400);
      const { rows } = await boss
        .getDb()
        .executeSql(claimSql, [
          queue,
          req.limit,
          req.skip,
          req.only,
          candidates,
          rooms.map(([l]) => l),
          rooms.map(([, n]) => n),
          req.room,
          req.skipAccounts,
          req.fastLanes,
          shares.map(([a]) => a),
          shares.map(([, n]) => n),
          req.accountRoom,
        ]);
      return rows as PgBoss.Job<object>[];
    },
    async putBack(jobs) {
      if (!jobs.length) return;
      await boss.getDb().executeSql(putBackSql, [queue, jobs.map((j) => j.id), jobs.map((j) => j.until.toISOString())]);
    },
  };
}

/** Wakes that arrive this close together share their workers' fetches. */
export const WAKE_COALESCE_MS = 20;

/**
 * Wakes this instance's workers for `queue` now instead of at their next poll.
 * A burst of jobs (say, the call.ended of a hundred calls a second) wakes as
 * many workers as there are batches, once per few milliseconds, rather than
 * one fetch query per job.
 */
export function wakeWorker(queue: string): void {
  const s = peek<State>("jobQueue");
  const w = s?.workers.get(queue);
  if (w?.wake) {
    w.wake();
    return;
  }
  if (!s || !w?.ids.length) return;
  w.requested++;
  w.timer ??= setTimeout(() => {
    const batches = Math.min(w.ids.length, Math.ceil(w.requested / w.batchSize));
    w.requested = 0;
    w.timer = null;
    for (let i = 0; i < batches; i++) s.boss.notifyWorker(w.ids[s.nextWake++ % w.ids.length]!);
  }, WAKE_COALESCE_MS);
  w.timer.unref();
}

/**
 * pg-boss reports every failed poll and maintenance run: during a database
 * outage that is several lines a second, all saying the same. The first of a
 * kind is logged at once; repeats within a minute are counted and summed up in
 * the next line of that kind.
 */
const QUEUE_ERROR_WINDOW_MS = 60_000;
const queueErrors = new Map<string, { loggedAt: number; repeats: number }>();

export function reportQueueError(err: unknown, now: number = Date.now()): boolean {
  const kind = `${(err as { code?: unknown }).code ?? ""}:${err instanceof Error ? err.message : String(err)}`.slice(
    0,
    200,
  );
  const seen = queueErrors.get(kind);
  if (seen && now - seen.loggedAt < QUEUE_ERROR_WINDOW_MS) {
    seen.repeats++;
    return false;
  }
  if (queueErrors.size > 100) queueErrors.clear();
  queueErrors.set(kind, { loggedAt: now, repeats: 0 });
  logger().error({ err, ...(seen?.repeats && { repeatsInLastMinute: seen.repeats }) }, "job queue error");
  return true;
}

/**
 * The first half of a graceful stop: no worker of this process takes another
 * job, and the attempts in flight finish (the delivery loop waits for them).
 * Jobs can still be sent, so a request that is finishing records its events;
 * stopJobQueue then stops the queue itself.
 */
export async function stopTakingJobs(): Promise<void> {
  const current = peek<State>("jobQueue");
  if (!current) return;
  const stops: Promise<unknown>[] = [];
  for (const [queue, w] of current.workers) {
    if (w.timer) clearTimeout(w.timer);
    w.timer = null;
    if (w.stop) stops.push(w.stop());
    else if (w.ids.length) stops.push(current.boss.offWork(queue));
  }
  await Promise.all(stops);
}

export async function stopJobQueue(): Promise<void> {
  const current = forget<State>("jobQueue");
  if (!current) return;
  for (const w of current.workers.values()) if (w.timer) clearTimeout(w.timer);
  await Promise.all([...current.workers.values()].map((w) => w.stop?.()));
  await current.ready.catch(() => undefined);
  await current.boss.stop({ graceful: true, wait: true, timeout: 15_000 });
}

/**
 * Sends a job of a definition, its payload checked against the definition's
 * schema; a job pg-boss did not store is an error, never a silent loss.
 */
export async function sendJob<P extends object>(
  job: JobDefinition<P>,
  payload: P,
  options: PgBoss.SendOptions = {},
): Promise<string> {
  const data = job.payload.parse(payload);
  const boss = await jobQueue();
  const id = await boss.send(job.name, data, options);
  if (!id) throw new Error(`job queue ${job.name} did not accept the job`);
  return id;
}

/** Lets pg-boss write its job inside the caller's Kysely transaction (db/sql-transaction.ts): no job without its change. */
export function onTransaction(trx: SqlTransaction): PgBoss.Db {
  return {
    async executeSql(text, values) {
      const { rows } = await trx.executeQuery(CompiledQuery.raw(text, values ?? []));
      return { rows };
    },
  };
}
