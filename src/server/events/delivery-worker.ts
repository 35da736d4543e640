import { callbackClient } from "../callbacks/callback-client";
import { db } from "../db/client";
import { QUEUES, jobQueue, registerWorker } from "../jobs/job-queue";
import { logger } from "../logger";
import { attemptDelivery, type AttemptDeps } from "./attempt-delivery";
import { DELIVERY_QUEUE, type DeliveryJob } from "./enqueue-event";

const PRUNE_QUEUE = QUEUES.webhookAttemptPrune;
export const ATTEMPT_RETENTION_DAYS = 30;

/**
 * Runs deliveries on this instance. A job is leased: if the process dies
 * mid-attempt, the job expires and pg-boss runs it again (our own retry
 * schedule is separate: those are new jobs).
 *
 * Several independent workers with small batches: a batch ends with its
 * slowest attempt (up to 10 s), so a slow customer endpoint holds up only the
 * few deliveries that share its batch. pg-boss sleeps out its polling
 * interval after every batch; a full batch means more are waiting, so the
 * worker wakes itself instead.
 */
export async function startDeliveryWorker(
  opts: { deps?: Partial<AttemptDeps>; workers?: number; batchSize?: number; pollingIntervalSeconds?: number } = {},
): Promise<void> {
  const boss = await jobQueue();
  const deps: AttemptDeps = { client: callbackClient(), ...opts.deps };
  const batchSize = opts.batchSize ?? 10;
  for (let i = 0; i < (opts.workers ?? 4); i++) {
    let workerId = "";
    workerId = await boss.work<DeliveryJob>(
      DELIVERY_QUEUE,
      { batchSize, pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 1 },
      async (jobs) => {
        const results = await Promise.allSettled(jobs.map((job) => attemptDelivery(job.data, deps)));
        if (jobs.length === batchSize) boss.notifyWorker(workerId);
        const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
        // Rejections are our own failures (the database), not the receiver's: let
        // pg-boss retry the batch; attempts already recorded are skipped then.
        if (failed.length) {
          logger().error({ err: failed[0]!.reason, count: failed.length }, "delivery attempts could not be recorded");
          throw failed[0]!.reason;
        }
      },
    );
    registerWorker(DELIVERY_QUEUE, workerId, batchSize);
  }

  await boss.schedule(PRUNE_QUEUE, "17 3 * * *"); // daily, once across all instances
  await boss.work(PRUNE_QUEUE, async () => {
    const deleted = await pruneOldAttempts();
    logger().info({ deleted }, "pruned old webhook attempts");
  });
}

export async function pruneOldAttempts(now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - ATTEMPT_RETENTION_DAYS * 24 * 3600_000);
  const { count } = await db().webhookAttempt.deleteMany({ where: { attemptedAt: { lt: cutoff } } });
  return count;
}
