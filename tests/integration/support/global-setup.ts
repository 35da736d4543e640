import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    serverLog: string;
    embedded: boolean;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      srv.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

async function waitReady(url: string, child: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${readFileSync(log, "utf8").slice(-4000)}`);
    try {
      const res = await fetch(`${url}/api/ready`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server not ready in time:\n${readFileSync(log, "utf8").slice(-4000)}`);
}

/**
 * Boots the built service (`dist/server.mjs`, run `npm run build` first) once
 * for the integration run: on DATABASE_URL when set, else on the embedded
 * database in a fresh DATA_DIR.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync("dist/server.mjs") || !existsSync(".next/BUILD_ID")) {
    throw new Error("The app is not built: run `npm run build` (npm test does it for you).");
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), "routekit-it-"));
  const serverLog = path.join(dataDir, "server.log");
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const logFd = openSync(serverLog, "a");
  const child = spawn(process.execPath, ["--enable-source-maps", "dist/server.mjs"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      DATA_DIR: dataDir,
      AUTH_SECRET: "integration-tests-only-secret-0123456789abcdef",
      // Each test client sends its own X-Forwarded-For, so per-IP limits apply per test.
      TRUST_PROXY: "true",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", logFd, logFd],
  });
  await waitReady(baseUrl, child, serverLog);

  const embedded = !process.env.DATABASE_URL;
  const databaseUrl = process.env.DATABASE_URL ?? readFileSync(path.join(dataDir, "embedded-postgres.url"), "utf8").trim();
  project.provide("baseUrl", baseUrl);
  project.provide("databaseUrl", databaseUrl);
  project.provide("serverLog", serverLog);
  project.provide("embedded", embedded);

  return async () => {
    child.kill("SIGTERM");
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
    if (process.env.KEEP_TEST_DATA) console.log(`test data kept in ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  };
}
