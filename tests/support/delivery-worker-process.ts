// A delivery worker in a process of its own, so a test can kill it hard.
// Same code as the server's worker, on the test's delivery queue (and pg-boss schema). The lease and
// maintenance interval are the test's (WORKER_LEASE_SECONDS,
// WORKER_MAINTENANCE_SECONDS); unset, the production values apply.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseEnv, setEnv } from "../../src/server/env";
import { pool, setConnectionUrl } from "../../src/server/db/client";
import { jobQueue } from "../../src/server/jobs/job-queue";
import { configureDeliveryQueue } from "../../src/server/jobs/delivery-queue/postgres-delivery-queue";
import { startDeliveryWorker } from "../../src/server/workers/delivery-worker";
import { TEST_AUTH_SECRET } from "./test-secrets";

setEnv(
  parseEnv({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "routekit-worker-")),
    AUTH_SECRET: TEST_AUTH_SECRET,
    CALLBACK_ALLOW_PRIVATE: "true",
    LOG_LEVEL: "silent",
  }),
);
setConnectionUrl(process.env.WORKER_DATABASE_URL!);
// node-postgres emits a connection lost mid-statement on the checked-out client too, where the
// pool's own listener is not attached: unheard, it would end this process (the statement itself
// fails and the worker handles that). The server's pool error handlers are issue 23 item 7.
pool().on("connect", (client) => client.on("error", () => undefined));
const seconds = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
const lease = seconds("WORKER_LEASE_SECONDS");
configureDeliveryQueue({ name: process.env.WORKER_SCHEMA!, ...(lease && { leaseSeconds: lease }) });
await jobQueue({
  schema: process.env.WORKER_SCHEMA!,
  maintenanceIntervalSeconds: seconds("WORKER_MAINTENANCE_SECONDS"),
});
await startDeliveryWorker();
console.log("worker ready");
