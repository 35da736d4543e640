import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { STRIPE_TEST_ENV, TEST_AUTH_SECRET } from "./test-secrets";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    serverLog: string;
    permissiveBaseUrl: string;
    permissiveDatabaseUrl: string;
    /** Where the permissive server expects Twilio: the engine tests run the simulator on this port. */
    twilioSimulatorPort: number;
    /** The Stripe-mode server, and the port its fake Stripe must listen on. */
    stripeBaseUrl: string;
    stripeDatabaseUrl: string;
    stripeFakePort: number;
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

type Started = { baseUrl: string; databaseUrl: string; log: string; dataDir: string; child: ChildProcess };

/** One built server (`dist/server.mjs`) with its own data directory and database. */
async function startServer(name: string, databaseUrl: string | undefined, extraEnv: Record<string, string>): Promise<Started> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `routekit-it-${name}-`));
  const log = path.join(dataDir, "server.log");
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const logFd = openSync(log, "a");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    PUBLIC_BASE_URL: baseUrl,
    DATA_DIR: dataDir,
    AUTH_SECRET: TEST_AUTH_SECRET,
    // Each test client sends its own X-Forwarded-For, so per-IP limits apply per test.
    TRUST_PROXY: "true",
    LOG_LEVEL: "info",
    DATABASE_URL: databaseUrl,
    ...extraEnv,
  };
  if (!databaseUrl) delete env.DATABASE_URL;
  const child = spawn(process.execPath, ["--enable-source-maps", "dist/server.mjs"], { env, stdio: ["ignore", logFd, logFd] });
  await waitReady(baseUrl, child, log);
  const resolvedDb = databaseUrl ?? readFileSync(path.join(dataDir, "embedded-postgres.url"), "utf8").trim();
  return { baseUrl, databaseUrl: resolvedDb, log, dataDir, child };
}

/** A sibling database on the same PostgreSQL server, fresh for this run. */
async function siblingDatabase(url: string, suffix: string): Promise<string> {
  const target = new URL(url);
  const name = `${target.pathname.slice(1)}_${suffix}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  target.pathname = `/${name}`;
  return target.href;
}

/**
 * Boots the built service twice for the integration run, on DATABASE_URL (and a
 * sibling database) when set, else on the embedded database:
 * - the strict server, configured as in production (callback URLs must be public HTTPS);
 * - the permissive server, with CALLBACK_ALLOW_PRIVATE=true, so local customer
 *   backends on 127.0.0.1 receive calls and events.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync("dist/server.mjs") || !existsSync(".next/BUILD_ID")) {
    throw new Error("The app is not built: run `npm run build` (npm test does it for you).");
  }
  const external = process.env.DATABASE_URL;
  const permissiveDb = external ? await siblingDatabase(external, "permissive") : undefined;
  const stripeDb = external ? await siblingDatabase(external, "stripe") : undefined;
  const stripeFakePort = await freePort();
  const twilioSimulatorPort = await freePort();
  const [strict, permissive, stripeMode] = await Promise.all([
    // Nothing listens on port 9 of loopback here: Twilio is unreachable for the strict server.
    startServer("strict", external, { TWILIO_API_BASE_URL: "http://127.0.0.1:9" }),
    startServer("permissive", permissiveDb, {
      CALLBACK_ALLOW_PRIVATE: "true",
      CALLBACK_START_TIMEOUT_MS: "1500",
      TWILIO_API_BASE_URL: `http://127.0.0.1:${twilioSimulatorPort}`,
    }),
    startServer("stripe", stripeDb, {
      CALLBACK_ALLOW_PRIVATE: "true",
      ...STRIPE_TEST_ENV,
      STRIPE_API_BASE_URL: `http://127.0.0.1:${stripeFakePort}`,
    }),
  ]);
  const servers = [strict, permissive, stripeMode];

  project.provide("baseUrl", strict.baseUrl);
  project.provide("databaseUrl", strict.databaseUrl);
  project.provide("serverLog", strict.log);
  project.provide("permissiveBaseUrl", permissive.baseUrl);
  project.provide("permissiveDatabaseUrl", permissive.databaseUrl);
  project.provide("twilioSimulatorPort", twilioSimulatorPort);
  project.provide("stripeBaseUrl", stripeMode.baseUrl);
  project.provide("stripeDatabaseUrl", stripeMode.databaseUrl);
  project.provide("stripeFakePort", stripeFakePort);
  project.provide("embedded", !external);

  return async () => {
    for (const s of servers) s.child.kill("SIGTERM");
    await Promise.all(servers.map((s) => new Promise((r) => (s.child.exitCode !== null ? r(null) : s.child.once("exit", r)))));
    for (const s of servers) {
      if (process.env.KEEP_TEST_DATA) console.log(`test data kept in ${s.dataDir}`);
      else rmSync(s.dataDir, { recursive: true, force: true });
    }
  };
}
