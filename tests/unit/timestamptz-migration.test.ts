// The migration to timestamptz keeps every stored moment: the old timestamp(3) columns held UTC
// wall time, whatever the session's time zone, and must read back as the same instants.
import { cpSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations } from "../../src/server/db/apply-migrations";
import { startPgliteWireServer } from "../../src/server/db/pglite-wire-server";

const repoMigrations = path.resolve(import.meta.dirname, "../../prisma/migrations");
const TIMESTAMPTZ = readdirSync(repoMigrations).find((n) => n.endsWith("_timestamptz_and_database_ids"))!;

let db: PGlite;
let server: Awaited<ReturnType<typeof startPgliteWireServer>>;
let pool: pg.Pool;

beforeAll(async () => {
  db = new PGlite();
  server = await startPgliteWireServer(db);
  // A session far from UTC: the conversion must not depend on it.
  pool = new pg.Pool({
    connectionString: `postgresql://postgres@${server.host}:${server.port}/postgres`,
    max: 1,
    options: "-c TimeZone=America/New_York",
  });
}, 60_000);
afterAll(async () => {
  await pool.end();
  await server.close();
  await db.close();
});

describe(`migration ${TIMESTAMPTZ}`, () => {
  it("converts rows already there to the same instants, and gives new rows database ids", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "timestamptz-migration-"));
    for (const name of readdirSync(repoMigrations))
      if (name < TIMESTAMPTZ) cpSync(path.join(repoMigrations, name), path.join(dir, name), { recursive: true });
    await applyMigrations(pool, dir);
    await pool.query(
      `INSERT INTO "Account" ("id", "email", "passwordHash", "webhookSecretEnc", "routingTokenHash", "createdAt", "updatedAt", "currentPeriodEnd")
       VALUES ('cold', 'old@example.com', 'x', 'x', 'h-old', '2026-11-20 10:00:00.123', '2026-11-20 10:00:00.123', '2026-12-01 00:00:00')`,
    );

    cpSync(path.join(repoMigrations, TIMESTAMPTZ), path.join(dir, TIMESTAMPTZ), { recursive: true });
    expect(await applyMigrations(pool, dir)).toEqual([TIMESTAMPTZ]);

    const old = (
      await pool.query<{ createdAt: Date; currentPeriodEnd: Date }>(
        `SELECT "createdAt", "currentPeriodEnd" FROM "Account" WHERE "id" = 'cold'`,
      )
    ).rows[0]!;
    expect(old.createdAt.toISOString()).toBe("2026-11-20T10:00:00.123Z");
    expect(old.currentPeriodEnd.toISOString()).toBe("2026-12-01T00:00:00.000Z");

    const fresh = (
      await pool.query<{ id: string; createdAt: Date; updatedAt: Date }>(
        `INSERT INTO "Account" ("email", "passwordHash", "webhookSecretEnc", "routingTokenHash") VALUES ('new@example.com', 'x', 'x', 'h-new') RETURNING "id", "createdAt", "updatedAt"`,
      )
    ).rows[0]!;
    expect(fresh.id).toMatch(/^c[0-9a-z]{24}$/);
    expect(Math.abs(fresh.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
    expect(fresh.updatedAt.getTime()).toBe(fresh.createdAt.getTime());
  }, 60_000);
});
