import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort, siblingDatabase, startBuiltServer, type BuiltServer } from "../../scripts/built-server";
import { strayLogLines } from "../support/server-log";
import { TEST_AUTH_SECRET } from "../support/test-secrets";

// Redis, when configured, is never a single point of failure: stopped or
// frozen (SIGSTOP) under API traffic, every answer is 2xx, 429 or 503 within
// a second, the rate limits move to PostgreSQL and back, and the return of
// Redis brings no burst of 429 (nothing queued during the outage is replayed).
// The test runs its own redis-server, so it can freeze and kill it.

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("redis-server did not start")), 10_000);
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return child;
}

async function stopRedis(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGCONT");
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Sample = { phase: string; kind: "read" | "login"; status: number; ms: number };

describe.skipIf(inject("embedded"))("a Redis outage under API traffic", () => {
  let redisPort: number;
  let redis: ChildProcess | undefined;
  let server: BuiltServer;

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    const databaseUrl = await siblingDatabase(inject("databaseUrl"), "redis_outage");
    server = await startBuiltServer({
      name: "it-redis-outage",
      env: { AUTH_SECRET: TEST_AUTH_SECRET, DATABASE_URL: databaseUrl, REDIS_URL: `redis://127.0.0.1:${redisPort}` },
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await stopRedis(redis);
  });

  it("stopped and frozen: only 2xx, 429 and 503, none over 1 s, no burst of 429 when it returns, nothing printed outside the log", {
    timeout: 120_000,
  }, async () => {
    const email = `redis-${randomBytes(6).toString("hex")}@example.com`;
    const password = `pw-${randomBytes(8).toString("hex")}`;
    const register = await fetch(`${server.baseUrl}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "198.18.203.1" },
      body: JSON.stringify({ email, password }),
    });
    expect(register.status).toBe(201);
    const { apiKey } = (await register.json()) as { apiKey: string };

    let phase = "before";
    const samples: Sample[] = [];
    let running = true;
    let ip = 0;
    const timed = async (kind: Sample["kind"], request: () => Promise<Response>) => {
      const at = phase;
      const started = performance.now();
      const res = await request();
      await res.arrayBuffer();
      samples.push({ phase: at, kind, status: res.status, ms: performance.now() - started });
    };
    // About 30 reads a second, under the API's 50/s: any 429 would be spurious.
    const reader = async () => {
      while (running) {
        await timed("read", () =>
          fetch(`${server.baseUrl}/api/phone-numbers`, {
            headers: { authorization: `Bearer ${apiKey}`, "x-forwarded-for": "198.18.203.2" },
          }),
        );
        await pause(100);
      }
    };
    // A log-in every half second, each from its own address (the per-address limit is 10 a minute).
    const loginLoop = async () => {
      while (running) {
        ip++;
        await timed("login", () =>
          fetch(`${server.baseUrl}/api/auth/login`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-forwarded-for": `198.18.${204 + Math.floor(ip / 250)}.${(ip % 250) + 1}`,
            },
            body: JSON.stringify({ email, password }),
          }),
        );
        await pause(500);
      }
    };
    const traffic = Promise.all([reader(), reader(), reader(), loginLoop()]);
    const readiness = async () =>
      await fetch(`${server.baseUrl}/api/ready`).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as any,
      }));

    await pause(2000);
    phase = "frozen";
    redis!.kill("SIGSTOP");
    await pause(3000);
    const whileFrozen = await readiness();
    phase = "thawed";
    redis!.kill("SIGCONT");
    await pause(3000);
    phase = "stopped";
    await stopRedis(redis);
    await pause(3000);
    const whileStopped = await readiness();
    phase = "restarted";
    redis = await startRedis(redisPort);
    await pause(4000);
    running = false;
    await traffic;
    // ioredis reconnects with a backoff and its check times out while busy: give it up to 15 s to find Redis again.
    let after = await readiness();
    for (const deadline = Date.now() + 15_000; after.body.checks.redis !== "ok" && Date.now() < deadline; ) {
      await pause(250);
      after = await readiness();
    }

    const unexpected = samples.filter((s) => ![200, 201, 429, 503].includes(s.status));
    expect(unexpected).toEqual([]);
    const slow = samples.filter((s) => s.ms > 1000);
    expect(slow).toEqual([]);
    // Under the limit throughout, so no 429 at all: not during the outage, not when Redis returns.
    expect(samples.filter((s) => s.status === 429)).toEqual([]);
    for (const p of ["frozen", "thawed", "stopped", "restarted"]) {
      const inPhase = samples.filter((s) => s.phase === p);
      expect(inPhase.length, p).toBeGreaterThan(20);
      // The PostgreSQL buckets serve: the requests succeed, not merely avoid a 500.
      expect(inPhase.filter((s) => s.status === 200).length / inPhase.length, p).toBeGreaterThan(0.95);
    }

    // Readiness names Redis while it is away, but the instance stays ready: its rate limits are on PostgreSQL.
    expect(whileFrozen.status).toBe(200);
    expect(whileFrozen.body.checks.redis).toMatch(/^unreachable .*rate limits on PostgreSQL$/);
    expect(whileStopped.status).toBe(200);
    expect(whileStopped.body.checks.redis).toMatch(/^unreachable .*rate limits on PostgreSQL$/);
    expect(after.body.checks.redis).toBe("ok");

    // Every line the server wrote is JSON (no "[ioredis] Unhandled error event"), and each switch is one line.
    expect(strayLogLines(server.log)).toEqual([]);
    const lines = readFileSync(server.log, "utf8").split("\n");
    const downs = lines.filter((l) => l.includes("Redis unreachable"));
    expect(downs.length).toBeGreaterThanOrEqual(2);
    expect(downs.length).toBeLessThanOrEqual(4);
    expect(process.kill(server.child.pid!, 0)).toBe(true);
  });
});
