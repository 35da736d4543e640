/**
 * What the delivery benchmarks (webhook-delivery, noisy-neighbour) share: one
 * instance's event pipeline in this process, on DATABASE_URL when set (use a
 * scratch database), else an embedded database in a temporary DATA_DIR, with
 * callback URLs allowed to point at this machine. The environment is set
 * before the service's modules load, so they are imported here, not at the top.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export async function bootDeliveryBench() {
  process.env.DATA_DIR ??= mkdtempSync(path.join(tmpdir(), "routekit-bench-"));
  process.env.CALLBACK_ALLOW_PRIVATE = "true";
  process.env.LOG_LEVEL = "warn";
  Object.assign(process.env, { NODE_ENV: "development" });
  const [
    { boot },
    { registerAccount },
    { startDeliveryWorker },
    { transactionWithEvents },
    { buildEvent },
    { jobQueue, stopJobQueue },
    { createWebhookEndpoint },
    { kysely },
  ] = await Promise.all([
    import("../../src/server/boot"),
    import("../../src/server/services/accounts/register-account"),
    import("../../src/server/workers/delivery-worker"),
    import("../../src/server/webhooks/enqueue-event"),
    import("../../src/server/webhooks/event-envelope"),
    import("../../src/server/jobs/job-queue"),
    import("../../src/server/services/webhook-endpoints/webhook-endpoints"),
    import("../../src/server/db/kysely"),
  ]);
  const booted = await boot();
  /** A new account by a tag, for one customer of the benchmark. */
  const register = async (tag: string) =>
    (await registerAccount({ email: `bench-${tag}-${Date.now()}@example.com`, password: "benchmark-password" }))
      .account;
  return {
    booted,
    register,
    startDeliveryWorker,
    transactionWithEvents,
    buildEvent,
    jobQueue,
    stopJobQueue,
    createWebhookEndpoint,
    kysely,
  };
}
