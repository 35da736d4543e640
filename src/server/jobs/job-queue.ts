import PgBoss from "pg-boss";
import type pg from "pg";
import type { Prisma } from "@/generated/prisma/client";
import { connectionUrl } from "../db/client";
import { logger } from "../logger";

/**
 * The durable job queue: pg-boss on the service's own PostgreSQL (the real
 * server or the embedded one), so a job enqueued survives any crash and runs on
 * whichever instance picks it up. Shared on globalThis by the custom server
 * (which runs the workers) and the Next.js bundles (which enqueue).
 */
/**
 * Every queue and its policy, created before the queue is handed out: pg-boss
 * silently drops a job sent to a queue that does not exist yet.
 * The delivery lease (expireInSeconds) bounds how long a crashed worker's job
 * waits before pg-boss runs it again; it must exceed one attempt's 10 s.
 */
export const QUEUES = {
  webhookDelivery: "webhook-delivery",
  webhookAttemptPrune: "webhook-attempt-prune",
  stripeMeterEvent: "stripe-meter-event",
} as const;

export type QueueTuning = {
  /** How often expired (crashed) jobs are reclaimed. */
  maintenanceIntervalSeconds?: number;
  /** pg-boss's schema; separate schemas are separate queues (tests use their own). */
  schema?: string;
  /** Lease of a delivery job, seconds (default 60). */
  deliveryLeaseSeconds?: number;
};

async function createQueues(boss: PgBoss, tuning: QueueTuning): Promise<PgBoss> {
  await boss.createQueue(QUEUES.webhookDelivery, {
    name: QUEUES.webhookDelivery,
    // Our retry schedule makes new jobs; these retries only cover our own failures and crashes.
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
    expireInSeconds: tuning.deliveryLeaseSeconds ?? 60,
  });
  await boss.createQueue(QUEUES.webhookAttemptPrune, { name: QUEUES.webhookAttemptPrune });
  // Stripe accepts meter events up to 35 days old: retry for about a day, backing off.
  await boss.createQueue(QUEUES.stripeMeterEvent, {
    name: QUEUES.stripeMeterEvent,
    retryLimit: 20,
    retryDelay: 10,
    retryBackoff: true,
    expireInSeconds: 60,
  });
  return boss;
}

type Workers = { ids: string[]; batchSize: number; requested: number; timer: NodeJS.Timeout | null };
type State = { boss: PgBoss; ready: Promise<PgBoss>; workers: Map<string, Workers>; nextWake: number };
const KEY = Symbol.for("routekit.jobQueue");
type Holder = { [KEY]?: State };

function state(tuning: QueueTuning = {}): State {
  const g = globalThis as Holder;
  if (!g[KEY]) {
    const boss = new PgBoss({
      connectionString: connectionUrl(),
      max: 5,
      application_name: "routekit-jobs",
      schema: tuning.schema ?? "pgboss",
      maintenanceIntervalSeconds: tuning.maintenanceIntervalSeconds ?? 30,
    });
    boss.on("error", (err) => logger().error({ err }, "job queue error"));
    g[KEY] = { boss, ready: boss.start().then(() => createQueues(boss, tuning)), workers: new Map(), nextWake: 0 };
  }
  return g[KEY];
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

/** Wakes that arrive this close together share their workers' fetches. */
export const WAKE_COALESCE_MS = 20;

/**
 * Wakes this instance's workers for `queue` now instead of at their next poll.
 * A burst of jobs (say, the call.ended of a hundred calls a second) wakes as
 * many workers as there are batches, once per few milliseconds, rather than
 * one fetch query per job.
 */
export function wakeWorker(queue: string): void {
  const s = (globalThis as Holder)[KEY];
  const w = s?.workers.get(queue);
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

export async function stopJobQueue(): Promise<void> {
  const g = globalThis as Holder;
  const current = g[KEY];
  if (!current) return;
  delete g[KEY];
  for (const w of current.workers.values()) if (w.timer) clearTimeout(w.timer);
  await current.ready.catch(() => undefined);
  await current.boss.stop({ graceful: true, wait: true, timeout: 15_000 });
}

/** Sends a job; a job pg-boss did not store is an error, never a silent loss. */
export async function sendJob(queue: string, data: object, options: PgBoss.SendOptions = {}): Promise<string> {
  const boss = await jobQueue();
  const id = await boss.send(queue, data, options);
  if (!id) throw new Error(`job queue ${queue} did not accept the job`);
  return id;
}

/** Lets pg-boss write its job inside the caller's Prisma transaction: no job without its change. */
export function inTransaction(tx: Prisma.TransactionClient): PgBoss.Db {
  return {
    async executeSql(text, values) {
      const rows = await tx.$queryRawUnsafe<unknown[]>(text, ...(values ?? []));
      return { rows };
    },
  };
}

/** The same, inside a transaction on a plain `pg` connection (the engine's). */
export function onConnection(client: pg.ClientBase): PgBoss.Db {
  return {
    async executeSql(text, values) {
      const { rows } = await client.query(text, values);
      return { rows };
    },
  };
}
