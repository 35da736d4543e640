import PgBoss from "pg-boss";
import { CompiledQuery } from "kysely";
import { connectionUrl } from "../db/client";
import type { SqlTransaction } from "../db/sql-transaction";
import { logger } from "../logger";
import { forget, peek, remember } from "../runtime/remember";
import { JOB_DEFINITIONS } from "./definitions";
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
 * timer fires a little early), then retries them after 1-2 s. (Event
 * deliveries are not pg-boss jobs: jobs/delivery-queue/.)
 */
const MAINTENANCE_INTERVAL_SECONDS = 4;

/**
 * Job rows kept (the delivery log is our own tables; pg-boss's rows are only
 * the engine's bookkeeping). At 100 events/s: completed jobs leave the job
 * table after 5 min (about 30,000 rows), the archive drops them 15 min later
 * (about 90,000 rows). Failed jobs (our own failures, after 10 retries) stay a
 * day in the job table, where an operator looks.
 */
const RETENTION = {
  archiveCompletedAfterSeconds: 300,
  archiveFailedAfterSeconds: 24 * 3600,
  deleteAfterSeconds: 900,
} as const;

/**
 * Queues of earlier versions, deleted at start through pg-boss's own API: `webhook-delivery` held one job per
 * delivery attempt until deliveries became their own queue (docs/adr/0009-delivery-queue.md; the migration
 * queued every PENDING delivery there, so its jobs are no longer needed).
 */
export const RETIRED_QUEUES = ["webhook-delivery"] as const;

/**
 * A retired queue's waiting jobs are deleted (purgeQueue), then the queue (deleteQueue). pg-boss 10 refuses to
 * delete a queue that still has jobs in any state (its foreign key), so while finished ones wait for pg-boss's
 * own retention to remove them, the queue stays, empty of work, and a later start deletes it.
 */
async function retireQueue(boss: PgBoss, name: string): Promise<void> {
  await boss.purgeQueue(name);
  try {
    await boss.deleteQueue(name);
  } catch (err) {
    logger().info(
      { queue: name, err: (err as Error).message },
      "retired queue kept until pg-boss's retention empties it",
    );
  }
}

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
  for (const name of RETIRED_QUEUES) if (existing.has(name)) await retireQueue(boss, name);
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
 * For a loop this process runs beside pg-boss's workers (the delivery worker, the alert scan): `wake` runs
 * when work was just queued for it from this process; `stop` ends it (and waits for what it runs) when the
 * process stops taking work.
 */
export function registerFetchLoop(queue: string, loop: { wake: () => void; stop: () => Promise<void> }): void {
  const s = state();
  const w = s.workers.get(queue) ?? { ids: [], batchSize: 1, requested: 0, timer: null };
  Object.assign(w, loop);
  s.workers.set(queue, w);
}

/** Wakes that arrive this close together share their workers' fetches. */
const WAKE_COALESCE_MS = 20;

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
