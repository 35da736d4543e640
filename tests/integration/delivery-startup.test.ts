// Decisions §8: any number of instances may start at once on one database.
// The built server, several at once, on a database created fresh for each
// case (migrations, pg-boss's schema and its queues all raced); and a server
// whose port is taken exits non-zero instead of running headless.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { siblingDatabase, startBuiltServer, type BuiltServer } from "../../scripts/built-server";
import { TEST_AUTH_SECRET } from "../support/test-secrets";

const created: string[] = [];
afterAll(async () => {
  if (!created.length) return;
  const admin = new pg.Client({ connectionString: inject("databaseUrl") });
  await admin.connect();
  for (const url of created)
    await admin
      .query(`DROP DATABASE IF EXISTS "${new URL(url).pathname.slice(1)}" WITH (FORCE)`)
      .catch(() => undefined);
  await admin.end();
});

async function freshDatabase(tag: string): Promise<string> {
  const url = await siblingDatabase(inject("databaseUrl"), `${tag}_${Date.now().toString(36)}`);
  created.push(url);
  return url;
}

async function startTogether(count: number): Promise<void> {
  const databaseUrl = await freshDatabase(`start${count}`);
  const results = await Promise.allSettled(
    Array.from({ length: count }, (_, i) =>
      startBuiltServer({
        name: `start${count}-${i}`,
        env: { DATABASE_URL: databaseUrl, AUTH_SECRET: TEST_AUTH_SECRET, LOG_LEVEL: "warn" },
        readyTimeoutMs: 150_000,
      }),
    ),
  );
  const servers = results
    .filter((r): r is PromiseFulfilledResult<BuiltServer> => r.status === "fulfilled")
    .map((r) => r.value);
  try {
    for (const r of results) if (r.status === "rejected") throw r.reason;
    // Still up a moment later, every one of them, and the queues exist once.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(servers.map((s) => s.child.exitCode)).toEqual(servers.map(() => null));
    for (const s of servers) expect((await fetch(`${s.baseUrl}/api/ready`)).status).toBe(200);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query<{ name: string }>(
      `SELECT name FROM pgboss.queue WHERE name NOT LIKE '__pgboss%' ORDER BY name`,
    );
    await client.end();
    expect(rows.map((r) => r.name)).toEqual([
      "alert-scan",
      "audit-log-prune",
      "close-unfinished-calls",
      "mail",
      "number-config-check",
      "stripe-meter-event",
      "twilio-reconcile",
      "usage-threshold-mail",
      "webhook-attempt-prune",
    ]);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

describe.skipIf(inject("embedded"))("instances starting at once", () => {
  it("two instances start together on a fresh database and both stay up", () => startTogether(2), 200_000);
  it("five instances start together on a fresh database and all stay up", () => startTogether(5), 200_000);

  it("a server whose port is taken stops and exits non-zero", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "0.0.0.0", () => r()));
    const port = (blocker.address() as { port: number }).port;
    const dataDir = mkdtempSync(path.join(tmpdir(), "routekit-porttaken-"));
    try {
      const child = spawn(process.execPath, ["dist/server.mjs"], {
        env: {
          ...process.env,
          NODE_ENV: "production",
          PORT: String(port),
          PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
          DATA_DIR: dataDir,
          AUTH_SECRET: TEST_AUTH_SECRET,
          DATABASE_URL: await freshDatabase("porttaken"),
          LOG_LEVEL: "info",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
      child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
      const code = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => {
          child.kill("SIGKILL");
          resolve(null);
        }, 120_000);
        child.once("exit", (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      expect(code, output.slice(-2000)).toBe(1);
      expect(output).toContain("could not listen");
      expect(output).toContain("EADDRINUSE");
    } finally {
      blocker.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 150_000);
});
