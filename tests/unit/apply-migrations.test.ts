import { randomBytes } from "node:crypto";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { startPgliteWireServer } from "../../src/server/db/pglite-wire-server";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { applyMigrations } from "../../src/server/db/apply-migrations";

const repoMigrations = path.resolve(import.meta.dirname, "../../prisma/migrations");

/** The repo's real migrations plus two small ones after them, in a scratch directory. */
function fixtureDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "apply-migrations-"));
  cpSync(repoMigrations, dir, { recursive: true });
  const add = (name: string, sql: string) => {
    mkdirSync(path.join(dir, name));
    writeFileSync(path.join(dir, name, "migration.sql"), sql);
  };
  // pg_sleep widens the window in which two concurrent runs could collide.
  add("99990101000000_test_widgets", `CREATE TABLE "Widget" ("id" INTEGER PRIMARY KEY);\nSELECT pg_sleep(0.1);\n`);
  add("99990101000001_test_widget_name", `ALTER TABLE "Widget" ADD COLUMN "name" TEXT;\n`);
  return dir;
}

const migrationNames = (dir: string) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

interface Backend {
  url: string;
  close(): Promise<void>;
}

async function realPostgres(): Promise<Backend> {
  const admin = new URL(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  const database = `mig_apply_test_${randomBytes(6).toString("hex")}`;
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: admin.href });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE DATABASE "${database}"`);
  const url = new URL(admin.href);
  url.pathname = `/${database}`;
  return { url: url.href, close: () => run(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`) };
}

async function pgliteOverSocket(): Promise<Backend> {
  const db = new PGlite();
  const server = await startPgliteWireServer(db);
  return {
    url: `postgresql://postgres@${server.host}:${server.port}/postgres`,
    close: async () => {
      await server.close();
      await db.close();
    },
  };
}

async function postgresReachable(): Promise<boolean> {
  if (process.env.DATABASE_URL) return true; // configured: a failure to connect must fail the tests
  const client = new pg.Client({
    connectionString: "postgresql://postgres@127.0.0.1:5432/postgres",
    connectionTimeoutMillis: 2000,
  });
  client.on("error", () => undefined);
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const backends = [
  { name: "PostgreSQL", start: realPostgres, available: await postgresReachable() },
  { name: "PGlite via the wire server", start: pgliteOverSocket, available: true },
];

describe.each(backends)("applyMigrations on $name", ({ start, available }) => {
  if (!available) {
    it.skip("needs PostgreSQL at 127.0.0.1:5432 or DATABASE_URL");
    return;
  }
  let backend: Backend;
  let pools: pg.Pool[] = [];
  let dir: string;
  const pool = () => {
    const p = new pg.Pool({ connectionString: backend.url, max: 3 });
    pools.push(p);
    return p;
  };
  const rows = async <R extends pg.QueryResultRow>(sql: string) => (await pool().query<R>(sql)).rows;

  beforeAll(async () => {
    backend = await start();
  }, 60_000);
  afterAll(async () => {
    await backend.close();
  });
  beforeEach(async () => {
    dir = fixtureDir();
    // A fresh public schema per test, cheaper than a fresh PGlite.
    await pool().query(`DROP SCHEMA public CASCADE; CREATE SCHEMA public`);
  });
  afterEach(async () => {
    await Promise.all(pools.map((p) => p.end()));
    pools = [];
    rmSync(dir, { recursive: true, force: true });
  });

  it("applies every migration in order and records it like Prisma", async () => {
    expect(await applyMigrations(pool(), dir)).toEqual(migrationNames(dir));

    const recorded = await rows<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      applied_steps_count: number;
    }>(
      `SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY started_at, migration_name`,
    );
    expect(recorded.map((r) => r.migration_name)).toEqual(migrationNames(dir));
    for (const r of recorded) {
      expect(r.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(r.finished_at).toBeInstanceOf(Date);
      expect(r.applied_steps_count).toBe(1);
    }
    // The schema from the repo's migrations is really there.
    const tables = await rows<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(["Account", "ApiKey", "Widget", "_prisma_migrations"]),
    );

    const columns = await rows<{
      column_name: string;
      data_type: string;
      max: number | null;
      is_nullable: string;
      column_default: string | null;
    }>(
      `SELECT column_name, data_type, character_maximum_length AS max, is_nullable, column_default
         FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(columns).toEqual([
      { column_name: "id", data_type: "character varying", max: 36, is_nullable: "NO", column_default: null },
      { column_name: "checksum", data_type: "character varying", max: 64, is_nullable: "NO", column_default: null },
      {
        column_name: "finished_at",
        data_type: "timestamp with time zone",
        max: null,
        is_nullable: "YES",
        column_default: null,
      },
      {
        column_name: "migration_name",
        data_type: "character varying",
        max: 255,
        is_nullable: "NO",
        column_default: null,
      },
      { column_name: "logs", data_type: "text", max: null, is_nullable: "YES", column_default: null },
      {
        column_name: "rolled_back_at",
        data_type: "timestamp with time zone",
        max: null,
        is_nullable: "YES",
        column_default: null,
      },
      {
        column_name: "started_at",
        data_type: "timestamp with time zone",
        max: null,
        is_nullable: "NO",
        column_default: "now()",
      },
      { column_name: "applied_steps_count", data_type: "integer", max: null, is_nullable: "NO", column_default: "0" },
    ]);
  });

  it("applies nothing on a second run, also through a plain Client", async () => {
    await applyMigrations(pool(), dir);
    const client = new pg.Client({ connectionString: backend.url });
    await client.connect();
    try {
      expect(await applyMigrations(client, dir)).toEqual([]);
      // The session lock was released: a second client can take it at once.
      expect(await applyMigrations(pool(), dir)).toEqual([]);
    } finally {
      await client.end();
    }
    const [count] = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM "_prisma_migrations"`);
    expect(count?.n).toBe(migrationNames(dir).length);
  });

  it("refuses a migration edited after it was applied", async () => {
    await applyMigrations(pool(), dir);
    appendFileSync(path.join(dir, "99990101000000_test_widgets", "migration.sql"), "-- edited\n");
    await expect(applyMigrations(pool(), dir)).rejects.toThrow(
      /99990101000000_test_widgets was modified after it was applied/,
    );
  });

  it("rolls a failing migration back entirely and keeps the earlier ones", async () => {
    mkdirSync(path.join(dir, "99990101000002_test_broken"));
    writeFileSync(
      path.join(dir, "99990101000002_test_broken", "migration.sql"),
      `CREATE TABLE "Half" ("id" INTEGER);\nSELECT * FROM "Missing";\n`,
    );
    await expect(applyMigrations(pool(), dir)).rejects.toThrow(/99990101000002_test_broken failed/);

    const names = await rows<{ migration_name: string }>(`SELECT migration_name FROM "_prisma_migrations"`);
    expect(names.map((r) => r.migration_name)).not.toContain("99990101000002_test_broken");
    expect(names).toHaveLength(migrationNames(dir).length - 1);
    const [half] = await rows<{ t: string | null }>(`SELECT to_regclass('public."Half"')::text AS t`);
    expect(half?.t).toBeNull();
  });

  it("applies each migration exactly once when instances start together", async () => {
    const runs = await Promise.all([
      applyMigrations(pool(), dir),
      applyMigrations(pool(), dir),
      applyMigrations(pool(), dir),
    ]);
    expect(runs.flat().sort()).toEqual(migrationNames(dir));

    const recorded = await rows<{ migration_name: string; n: number }>(
      `SELECT migration_name, count(*)::int AS n FROM "_prisma_migrations" GROUP BY migration_name ORDER BY migration_name`,
    );
    expect(recorded).toEqual(migrationNames(dir).map((migration_name) => ({ migration_name, n: 1 })));
  });
});
