import { spawn, type ChildProcess } from "node:child_process";
import { inject } from "vitest";

/**
 * A delivery worker in its own process (delivery-worker-process.ts), on the
 * test's pg-boss schema, so a test can kill it hard; resolves once it says
 * it is ready. `extraEnv`: WORKER_LEASE_SECONDS, WORKER_MAINTENANCE_SECONDS.
 * Every worker started is in `started`, for the test's afterAll to kill.
 */
export function startWorkerProcess(
  schema: string,
  started: ChildProcess[],
  extraEnv: Record<string, string> = {},
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/support/delivery-worker-process.ts"], {
    env: { ...process.env, WORKER_DATABASE_URL: inject("permissiveDatabaseUrl"), WORKER_SCHEMA: schema, ...extraEnv },
    stdio: ["ignore", "pipe", "inherit"],
  });
  started.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("worker ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`worker exited early with ${code}`)));
  });
}
