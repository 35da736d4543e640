import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

/**
 * Starts the built service (`dist/server.mjs`; run `npm run build` first) the
 * way the integration tests and the benchmarks need it: its own DATA_DIR and
 * free port, production mode, client IPs from X-Forwarded-For, and waits until
 * /api/ready answers (or, with `until: "live"`, until /api/health does: an
 * instance started without its database, or with a broken journal, listens
 * but is not ready).
 */
export type BuiltServer = {
  baseUrl: string;
  dataDir: string;
  log: string;
  /** DATABASE_URL, or the embedded database's URL when none was given. */
  databaseUrl: string;
  embedded: boolean;
  child: ChildProcess;
  stop(opts?: { keepData?: boolean }): Promise<void>;
};

/**
 * Node's flags from `npm start` (package.json), so that tests and benchmarks run the server exactly as
 * production does (source maps, the young generation's size): one place says what they are.
 */
export function startFlags(): string[] {
  const start = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts.start;
  const flags = start?.match(/\bnode((?: --[\w-]+(?:=\S+)?)*) dist\/server\.mjs\b/)?.[1];
  if (flags === undefined)
    throw new Error(`package.json's start script runs no "node [--flags] dist/server.mjs": ${start}`);
  return flags.trim().split(" ").filter(Boolean);
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

export async function startBuiltServer(opts: {
  name: string;
  /** Added to (and overriding) the base environment; an undefined value removes the variable. */
  env?: Record<string, string | undefined>;
  nodeArgs?: string[];
  readyTimeoutMs?: number;
  until?: "ready" | "live";
  /** Listen on this port (a replacement instance behind a load balancer's fixed address); otherwise a free one. */
  port?: number;
  /** The server bundle to run; dist/server.mjs unless a benchmark built a variant (bench/observability-overhead.ts). */
  entry?: string;
  /** A command the server runs under, before node itself (bench/instructions-per-request.ts: valgrind). */
  wrapper?: string[];
}): Promise<BuiltServer> {
  if (!existsSync("dist/server.mjs") || !existsSync(".next/BUILD_ID")) {
    throw new Error("The app is not built: run `npm run build` (npm test does it for you).");
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), `routekit-${opts.name}-`));
  const log = path.join(dataDir, "server.log");
  // freePort() closes its probe before the server binds, so another process can take the port in
  // between; the server then exits with EADDRINUSE (main.ts), and it is started again on another port.
  for (let attempt = 1; ; attempt++) {
    const port = opts.port ?? (await freePort());
    const started = await spawnOnce(port, dataDir, log, opts);
    if (started.kind === "ready") return started.server;
    if (started.kind === "port-taken" && attempt < 3 && opts.port === undefined) continue;
    throw new Error(started.message);
  }
}

async function spawnOnce(
  port: number,
  dataDir: string,
  log: string,
  opts: {
    env?: Record<string, string | undefined>;
    nodeArgs?: string[];
    readyTimeoutMs?: number;
    until?: "ready" | "live";
    entry?: string;
    wrapper?: string[];
  },
): Promise<{ kind: "ready"; server: BuiltServer } | { kind: "port-taken" | "failed"; message: string }> {
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    PUBLIC_BASE_URL: baseUrl,
    DATA_DIR: dataDir,
    AUTH_SECRET: randomBytes(32).toString("hex"),
    TRUST_PROXY: "true",
    LOG_LEVEL: "info",
    // No load balancer watches these servers: a stop closes the listener at once (the load-balancer test sets its own).
    SHUTDOWN_DRAIN_MS: "0",
  };
  for (const [name, value] of Object.entries(opts.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  // This attempt's own lines: an earlier attempt's EADDRINUSE is not this one's.
  const from = existsSync(log) ? statSync(log).size : 0;
  const logFd = openSync(log, "a");
  const [command, ...prefix] = [...(opts.wrapper ?? []), process.execPath];
  const node = [...prefix, ...(opts.nodeArgs ?? []), ...startFlags(), opts.entry ?? "dist/server.mjs"];
  const child = spawn(command!, node, {
    env,
    stdio: ["ignore", logFd, logFd],
  });

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 90_000);
  for (;;) {
    if (child.exitCode !== null) {
      const tail = readFileSync(log).subarray(from).toString("utf8").slice(-4000);
      return {
        kind: tail.includes('"code":"EADDRINUSE"') ? "port-taken" : "failed",
        message: `server exited with ${child.exitCode}:\n${tail}`,
      };
    }
    const ready = await fetch(`${baseUrl}${opts.until === "live" ? "/api/health" : "/api/ready"}`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready && child.exitCode === null) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      return { kind: "failed", message: `server not ready in time:\n${readFileSync(log, "utf8").slice(-4000)}` };
    }
    await new Promise((r) => setTimeout(r, 200));
  }

  const embedded = !env.DATABASE_URL;
  const server: BuiltServer = {
    baseUrl,
    dataDir,
    log,
    embedded,
    databaseUrl: env.DATABASE_URL ?? readFileSync(path.join(dataDir, "embedded-postgres.url"), "utf8").trim(),
    child,
    async stop(stopOpts = {}) {
      child.kill("SIGTERM");
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
      if (!stopOpts.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return { kind: "ready", server };
}

/** A sibling database of `url` on the same PostgreSQL server (`<name>_<suffix>`), fresh for this run. */
export async function siblingDatabase(url: string, suffix: string): Promise<string> {
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
