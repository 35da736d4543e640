import { JOB_DEFINITIONS } from "./definitions";
import { jobQueue, registerWorker } from "./job-queue";

/**
 * Starts this instance's workers, one per job definition, in the registry's
 * order: a definition's own loop (`run`), or its handler on pg-boss's batches;
 * cron schedules are (re)declared once per start, and pg-boss sends each tick
 * once across all instances.
 */
export async function startJobWorkers(): Promise<void> {
  const boss = await jobQueue();
  for (const job of JOB_DEFINITIONS) {
    if (job.enabled && !job.enabled()) continue;
    if (job.run) await job.run();
    if (job.cron) await boss.schedule(job.name, job.cron);
    const handler = job.handler;
    if (handler) {
      const id = await boss.work<object>(job.name, job.work ?? {}, (jobs) => handler(jobs.map((j) => j.data)));
      registerWorker(job.name, id, job.work?.batchSize);
    }
  }
}
