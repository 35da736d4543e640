import "server-only";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "@/generated/prisma/client";
import { env } from "../env";
import { logger } from "../logger";
import { traceStatements } from "../tracing/pg-spans";
import { forget, peek, remember, rememberValue } from "../runtime/remember";

/**
 * One connection pool per process, over `pg`, whether the server is an external
 * PostgreSQL or the embedded PGlite behind its wire-protocol socket: one code
 * path for both. Prisma runs on it, and so does Kysely (db/kysely.ts), which
 * serves the hot paths and the SQL Prisma cannot say. The custom server and the Next.js
 * bundles are separate module graphs, so the singletons and the resolved URL
 * are remembered per process (runtime/remember.ts).
 */
export function setConnectionUrl(url: string): void {
  rememberValue("db.url", url);
}

export function connectionUrl(): string {
  const url = peek<string>("db.url") ?? env().databaseUrl;
  if (!url) throw new Error("No database: DATABASE_URL is unset and the embedded database has not been started");
  return url;
}

/** The process's connections: requests, the engine and the in-process delivery workers share them. */
export function pool(): pg.Pool {
  return remember("db.pool", () => {
    // Nothing waits on the database past Twilio's 15 s budget: at most 5 s for a
    // connection (busy pool, or a server that does not answer), then 8 s for a
    // statement (cancelled by the server; the client gives up a second later if
    // the server is gone). The errors are "try again" (503), never a hang.
    const created = new pg.Pool({
      connectionString: connectionUrl(),
      max: 20,
      connectionTimeoutMillis: 5_000,
      statement_timeout: 8_000,
      query_timeout: 9_000,
      keepAlive: true,
    });
    // An idle connection the server dropped is discarded by the pool; it must not crash the process.
    created.on("error", (err) =>
      logger().warn({ err: err.message }, "an idle database connection failed; the pool replaces it"),
    );
    // A connection checked out between two statements (a transaction, say) has no pool listener then: one of
    // its own keeps a server's "terminating connection" off stderr. Its holder's next statement fails and says so.
    created.on("connect", (client) => {
      client.on("error", (err) => logger().debug({ err: err.message }, "a database connection in use failed"));
      // A span per statement when tracing is on (tracing/pg-spans.ts); off, nothing.
      traceStatements(client);
    });
    return created;
  });
}

export function db(): PrismaClient {
  return remember("db.client", () => new PrismaClient({ adapter: new PrismaPg(pool()) }));
}

export async function disconnectDb(): Promise<void> {
  await forget<PrismaClient>("db.client")?.$disconnect();
  await forget<pg.Pool>("db.pool")?.end();
}

/**
 * A unique-constraint violation, for services that turn it into a domain
 * error: Prisma's P2002 outside transactions, PostgreSQL's 23505 from Kysely
 * inside `sqlTransaction`.
 */
export function isUniqueViolation(err: unknown): boolean {
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return code === "P2002" || code === "23505";
}
