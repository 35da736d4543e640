import { JOB_DEFINITIONS } from "../jobs/definitions";
import { jobQueue, registerWorker } from "../jobs/job-queue";
import { JOB_WORKERS } from "./job-workers";
import { startDeliveryWorker } from "./delivery-worker";

/**
 * Starts this instance's workers: the delivery worker on its own queue (jobs/delivery-queue/), then one per
 * job definition, in the registry's order: a job's own loop (`run`), or its handler on pg-boss's batches;
 * cron schedules are (re)declared once per start, and pg-boss sends each tick once across all instances.
 */
export async function startJobWorkers(): Promise<void> {
  const boss = await jobQueue();
  await startDeliveryWorker();
  for (const job of JOB_DEFINITIONS) {
    const worker = JOB_WORKERS[job.name as keyof typeof JOB_WORKERS] as {
      enabled?: () => boolean;
      run?: () => Promise<void>;
      handler?: (payloads: object[]) => Promise<void>;
    };
    if (worker.enabled && !worker.enabled()) continue;
    if (worker.run) await worker.run();
    if (job.cron) await boss.schedule(job.name, job.cron);
    const handler = worker.handler;
    if (handler) {
      const id = await boss.work<object>(job.name, job.work ?? {}, (jobs) => handler(jobs.map((j) => j.data)));
      registerWorker(job.name, id, job.work?.batchSize);
    }
  }
}
