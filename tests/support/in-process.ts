import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { parseEnv, setEnv } from "../../src/server/env";
import { disconnectDb, setConnectionUrl } from "../../src/server/db/client";
import { jobQueue, stopJobQueue, type QueueTuning } from "../../src/server/jobs/job-queue";
import { configureDeliveryQueue } from "../../src/server/jobs/delivery-queue/postgres-delivery-queue";
import { TEST_AUTH_SECRET } from "./test-secrets";

/**
 * Runs service code in the test process against the permissive server's
 * database, with a pg-boss schema and a delivery queue of its own (both named
 * `schema`): no server worker sees these jobs or deliveries, so the test
 * decides when each attempt runs and what time it is.
 */
export async function startInProcess(
  tuning: Omit<QueueTuning, "schema"> & { deliveryLeaseSeconds?: number } = {},
): Promise<{ schema: string; stop(): Promise<void> }> {
  setEnv(
    parseEnv({
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "routekit-inproc-")),
      AUTH_SECRET: TEST_AUTH_SECRET,
      CALLBACK_ALLOW_PRIVATE: "true",
      CALLBACK_START_TIMEOUT_MS: "1000",
      LOG_LEVEL: "silent",
    }),
  );
  setConnectionUrl(inject("permissiveDatabaseUrl"));
  const schema = `pgboss_t${randomBytes(4).toString("hex")}`;
  const { deliveryLeaseSeconds, ...queueTuning } = tuning;
  configureDeliveryQueue({ name: schema, ...(deliveryLeaseSeconds && { leaseSeconds: deliveryLeaseSeconds }) });
  await jobQueue({ ...queueTuning, schema });
  return {
    schema,
    async stop() {
      await stopJobQueue();
      await disconnectDb();
    },
  };
}

/** A clock the test moves by hand. */
export function manualClock(start = new Date()) {
  let t = start.getTime();
  return { now: () => new Date(t), set: (d: Date) => (t = d.getTime()), advance: (ms: number) => (t += ms) };
}
