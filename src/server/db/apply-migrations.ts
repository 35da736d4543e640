/**
 * Runtime migration applier: replays prisma/migrations/<name>/migration.sql files that the
 * database has not seen yet, keeping Prisma's `_prisma_migrations` bookkeeping so that
 * `prisma migrate status/deploy` (where available) read the same history. Only needs `pg`.
 */
import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { ClientBase, Pool, PoolClient } from "pg";

// The key `prisma migrate deploy` locks on, so this applier and the Prisma CLI exclude each other.
const ADVISORY_LOCK_KEY = 72707369;

// Prisma's own layout, so the table stays readable by Prisma tooling.
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum"            VARCHAR(64) NOT NULL,
  "finished_at"         TIMESTAMPTZ,
  "migration_name"      VARCHAR(255) NOT NULL,
  "logs"                TEXT,
  "rolled_back_at"      TIMESTAMPTZ,
  "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

function isPool(client: ClientBase | Pool): client is Pool {
  return "totalCount" in client;
}

async function readMigrations(migrationsDir: string): Promise<Migration[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(migrationsDir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: sha256(sql) };
    }),
  );
}

/**
 * Applies every migration folder of `migrationsDir` not yet recorded in `_prisma_migrations`,
 * in lexical order, each in its own transaction together with its bookkeeping row.
 * Returns the names applied by this call.
 *
 * Every statement goes out as a parameterless (simple-protocol) query: one wire message, the
 * simplest thing any PostgreSQL front end (including the embedded PGlite bridge) serves.
 */
export async function applyMigrations(client: ClientBase | Pool, migrationsDir: string): Promise<string[]> {
  const migrations = await readMigrations(migrationsDir);
  // A session advisory lock needs every query on one connection, not spread over a pool.
  const conn: ClientBase = isPool(client) ? await client.connect() : client;
  let failure: Error | undefined;
  try {
    await conn.query(`SELECT pg_advisory_lock(${ADVISORY_LOCK_KEY})`);
    try {
      await conn.query(CREATE_MIGRATIONS_TABLE);
      const recorded = await recordedMigrations(conn);
      const applied: string[] = [];
      for (const migration of migrations) {
        const row = recorded.get(migration.name);
        if (row) verifyRecorded(migration, row);
        else if (await applyOne(conn, migration)) applied.push(migration.name);
      }
      return applied;
    } finally {
      await conn.query(`SELECT pg_advisory_unlock(${ADVISORY_LOCK_KEY})`);
    }
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    // A connection that failed mid-way may still be in a transaction or hold the lock: discard it.
    if (isPool(client)) (conn as PoolClient).release(failure);
  }
}

async function recordedMigrations(conn: ClientBase): Promise<Map<string, MigrationRow>> {
  // Rolled-back rows are history only, exactly as Prisma treats them.
  const { rows } = await conn.query<MigrationRow>(
    `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
  );
  return new Map(rows.map((row) => [row.migration_name, row]));
}

function verifyRecorded(migration: Migration, row: MigrationRow): void {
  if (row.finished_at === null) {
    // Only a failed `prisma migrate deploy` leaves such a row; our transactions never do.
    throw new Error(
      `Migration ${migration.name} is recorded as started but never finished in _prisma_migrations; ` +
        `fix the database by hand, then mark it rolled back or applied (prisma migrate resolve).`,
    );
  }
  // Prisma also accepts the LF-normalised script, so a CRLF checkout is not reported as edited.
  const accepted = [migration.checksum, sha256(migration.sql.replaceAll("\r\n", "\n"))];
  if (!accepted.includes(row.checksum)) {
    throw new Error(
      `Migration ${migration.name} was modified after it was applied: the checksum of its migration.sql ` +
        `(${migration.checksum}) differs from the one recorded in _prisma_migrations (${row.checksum}).`,
    );
  }
}

/** Returns false when another process applied the migration first. */
async function applyOne(conn: ClientBase, migration: Migration): Promise<boolean> {
  const name = conn.escapeLiteral(migration.name);
  await conn.query("BEGIN");
  try {
    // On PGlite all connections share one backend session, so the advisory lock above does not
    // exclude anything there; the wire bridge serialises transactions instead, and this re-check
    // then sees the other connection's committed row.
    const existing = await conn.query(
      `SELECT 1 FROM "_prisma_migrations" WHERE migration_name = ${name} AND rolled_back_at IS NULL`,
    );
    if (existing.rowCount) {
      await conn.query("ROLLBACK");
      return false;
    }
    await conn.query(migration.sql);
    await conn.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
       VALUES (${conn.escapeLiteral(randomUUID())}, ${conn.escapeLiteral(migration.checksum)}, ${name}, clock_timestamp(), 1)`,
    );
    await conn.query("COMMIT");
    return true;
  } catch (error) {
    await conn.query("ROLLBACK").catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Migration ${migration.name} failed and was rolled back: ${reason}`, { cause: error });
  }
}
