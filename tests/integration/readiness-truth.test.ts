import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import pg from "pg";
import { siblingDatabase, startBuiltServer, type BuiltServer } from "../../scripts/built-server";
import { strayLogLines } from "../support/server-log";
import { TEST_AUTH_SECRET } from "../support/test-secrets";

// /api/ready says the truth (docs/decisions.md §7): it checks the journal a final
// status would be kept in during an outage, not only the database, and names
// what is wrong. And a database that drops the server's connections
// (pg_terminate_backend) shows only in the JSON log, never as a stray line on
// stderr or a dead process.

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const readiness = async (server: BuiltServer) => {
  const res = await fetch(`${server.baseUrl}/api/ready`);
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as any };
};
async function until(what: string, probe: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(250);
  }
}
describe.skipIf(inject("embedded"))("readiness and health say the truth", () => {
  const servers: BuiltServer[] = [];
  let databaseUrl: string;
  let server: BuiltServer;

  beforeAll(async () => {
    databaseUrl = await siblingDatabase(inject("databaseUrl"), "readiness");
    server = await startBuiltServer({
      name: "it-readiness",
      env: { AUTH_SECRET: TEST_AUTH_SECRET, DATABASE_URL: databaseUrl },
    });
    servers.push(server);
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) await s.stop();
  });

  it("a journal directory that cannot be written makes the instance unready, with the reason; it is ready again once fixed", async () => {
    const ready = await readiness(server);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: "ready",
      checks: { database: "ok", journal: "ok" },
      journal: { writable: true, depth: 0, oldestAgeSeconds: null },
    });
    expect(ready.body.journal.freeBytes).toBeGreaterThan(64 * 1024 * 1024);

    // A file where the directory should be: writes fail for root too (chmod would not stop root).
    const journal = path.join(server.dataDir, "engine-journal");
    rmSync(journal, { recursive: true, force: true });
    writeFileSync(journal, "not a directory");
    try {
      const broken = await readiness(server);
      expect(broken.status).toBe(503);
      expect(broken.retryAfter).toBe("5");
      expect(broken.body.status).toBe("not-ready");
      expect(broken.body.checks.database).toBe("ok");
      expect(broken.body.checks.journal).toMatch(/^not writable: (EEXIST|ENOTDIR)/);
      expect(broken.body.journal.writable).toBe(false);
      expect(broken.body.error).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
      expect(broken.body.error.message).toMatch(/^Not ready: journal not writable/);
      // Liveness is not readiness: the process answers.
      expect((await fetch(`${server.baseUrl}/api/health`)).status).toBe(200);
      // The monitor logs the change (within its 5 s period).
      await until("the journal's state in the log", async () =>
        readFileSync(server.log, "utf8").includes("the final-status journal cannot take statuses"),
      );
    } finally {
      rmSync(journal, { force: true });
    }
    expect((await readiness(server)).status).toBe(200);
  });

  it("a disk below the free-space floor makes the instance unready", { timeout: 120_000 }, async () => {
    // A floor no disk meets (a petabyte) stands in for a full disk.
    const starved = await startBuiltServer({
      name: "it-readiness-floor",
      env: { AUTH_SECRET: TEST_AUTH_SECRET, DATABASE_URL: databaseUrl, JOURNAL_MIN_FREE_MB: String(1024 ** 3) },
      until: "live",
    });
    servers.push(starved);
    const r = await readiness(starved);
    expect(r.status).toBe(503);
    expect(r.body.checks.journal).toMatch(/^low on space: \d+ MiB free, below the 1073741824 MiB floor/);
    expect(r.body.journal.writable).toBe(true);
  });

  it("connections the database terminates never reach stderr and never stop the process", {
    timeout: 60_000,
  }, async () => {
    // Traffic first, so the pools (requests, Prisma, Kysely, the job queue) hold idle connections.
    const keys: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${server.baseUrl}/api/auth/register`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": `198.18.210.${i + 1}` },
        body: JSON.stringify({
          email: `term-${randomBytes(6).toString("hex")}@example.com`,
          password: `pw-${randomBytes(8).toString("hex")}`,
        }),
      });
      expect(res.status).toBe(201);
      keys.push(((await res.json()) as { apiKey: string }).apiKey);
    }
    // And traffic during the terminations, so some connections are in use when they are cut.
    let running = true;
    const statuses: number[] = [];
    const traffic = Promise.all(
      keys.map(async (key) => {
        while (running) {
          const res = await fetch(`${server.baseUrl}/api/usage/current`, {
            headers: { authorization: `Bearer ${key}` },
          }).catch(() => null);
          if (res) statuses.push(res.status);
          await res?.arrayBuffer();
          await pause(25);
        }
      }),
    );
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      for (let round = 0; round < 3; round++) {
        await pause(1000);
        const { rows } = await admin.query(
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        );
        expect(rows[0].n).toBeGreaterThan(0);
      }
      await pause(1000);
    } finally {
      running = false;
      await traffic;
      await admin.end();
    }
    expect(server.child.exitCode).toBeNull();
    // A statement cut short is "try again", never a 500 (a 429 is the API's own limit, 50 a second per key).
    const failed = readFileSync(server.log, "utf8")
      .split("\n")
      .filter((l) => l.includes('"request failed"'));
    expect(
      statuses.filter((s) => s !== 200 && s !== 429 && s !== 503),
      failed.map((l) => String(JSON.parse(l).err?.message).slice(0, 300)).join("\n"),
    ).toEqual([]);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(10);
    await until("readiness after the terminations", async () => (await readiness(server)).status === 200);
    expect(strayLogLines(server.log)).toEqual([]);
    expect(readFileSync(server.log, "utf8")).not.toContain("uncaughtException");
  });
});
