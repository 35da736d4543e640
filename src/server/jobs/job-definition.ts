import type PgBoss from "pg-boss";
import type { z } from "zod";

/** Settings a process may change for its queues (tests run several on their own schemas). */
export type QueueTuning = {
  /** How often expired (crashed) jobs are reclaimed. */
  maintenanceIntervalSeconds?: number;
  /** pg-boss's schema; separate schemas are separate queues (tests use their own). */
  schema?: string;
  /** Lease of a delivery job, seconds. */
  deliveryLeaseSeconds?: number;
};

/**
 * One durable job: its queue, what a job carries, the queue's policy, and
 * what runs it. Each lives in a file of its own under `definitions/` and is
 * registered in `definitions/index.ts`; the queue is created from it on first
 * use and the workers are started from it (`start-job-workers.ts`). Handlers
 * are imported when they run, so a definition pulls in none of their modules.
 */
export type JobDefinition<P extends object> = {
  name: string;
  /** Checked when a job is sent: a malformed job is a bug here, never a surprise in a worker later. */
  payload: z.ZodType<P>;
  /** The queue's policy: retries, lease, singleton policy. */
  queue: (tuning: QueueTuning) => Omit<PgBoss.Queue, "name">;
  /** A cron schedule, sent once per tick across all instances. */
  cron?: string;
  /** Whether this instance runs the queue's worker (absent: always). */
  enabled?: () => boolean;
  /** pg-boss runs the handler on batches it fetches, polling at `work`'s pace. */
  handler?: (payloads: P[]) => Promise<void>;
  work?: PgBoss.WorkOptions;
  /** A worker that fetches its own jobs (the delivery loop), started instead of `handler`. */
  run?: () => Promise<void>;
};

export function defineJob<P extends object>(definition: JobDefinition<P>): JobDefinition<P> {
  return definition;
}
