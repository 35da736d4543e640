import type PgBoss from "pg-boss";
import type { z } from "zod";

/** Settings a process may change for its pg-boss queues (tests run several on their own schemas). */
export type QueueTuning = {
  /** How often expired (crashed) jobs are reclaimed. */
  maintenanceIntervalSeconds?: number;
  /** pg-boss's schema; separate schemas are separate queues (tests use their own). */
  schema?: string;
};

/**
 * One durable job: its queue, what a job carries and the queue's policy. Each
 * lives in a file of its own under `definitions/` and is registered in
 * `definitions/index.ts`; the queue is created from it on first use. A
 * definition is a leaf (it imports no service), so anything may send a job
 * without an import cycle; what runs it is its `*.handler.ts` beside it,
 * reached only from `job-workers.ts` when workers start.
 */
export type JobDefinition<P extends object> = {
  name: string;
  /** Checked when a job is sent: a malformed job is a bug here, never a surprise in a worker later. */
  payload: z.ZodType<P>;
  /** The queue's policy: retries, lease, singleton policy. */
  queue: (tuning: QueueTuning) => Omit<PgBoss.Queue, "name">;
  /** A cron schedule, sent once per tick across all instances. */
  cron?: string;
  /** How pg-boss polls for the handler's batches. */
  work?: PgBoss.WorkOptions;
};

export function defineJob<P extends object>(definition: JobDefinition<P>): JobDefinition<P> {
  return definition;
}

/** What runs a job: pg-boss runs `handler` on batches it fetches; `run` starts a worker that fetches its own jobs (the delivery loop). */
export type JobWorker<P extends object> = {
  /** Whether this instance runs the queue's worker (absent: always). */
  enabled?: () => boolean;
} & ({ handler: (payloads: P[]) => Promise<void>; run?: never } | { run: () => Promise<void>; handler?: never });
