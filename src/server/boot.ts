import path from "node:path";
import pg from "pg";
import { applyMigrations } from "./db/apply-migrations";
import { disconnectDb, setConnectionUrl } from "./db/client";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./db/embedded-postgres";
import { parseEnv, setEnv, type Env } from "./env";
import { logger } from "./logger";
import { startTracing, stopTracing } from "./tracing/tracing";
import { sealLegacyRoutingTokens } from "./services/accounts/engine-voice-url";
import { isTransientError } from "./errors/to-error-response";
import {
  errorSummary,
  markDatabaseUp,
  markDatabaseWaiting,
  publicDatabaseReason,
  retryUntilDone,
} from "./db/database-availability";
import { SESSION_BASE_PATH } from "../shared/session-path";

export type Booted = {
  env: Env;
  embedded: EmbeddedPostgres | null;
  /** Resolves once the database is reachable and migrated: at once, or when it comes back (a degraded start); false if stopped first. */
  databaseUp: Promise<boolean>;
  shutdown(): Promise<void>;
};

/**
 * Everything the service needs before it takes a request: validated config,
 * a database (the configured one, or the embedded one), migrations applied.
 * A configured database that cannot be reached does not stop the start: the
 * instance serves degraded (main.ts) and migrates once the database is back,
 * so a crash or a deploy during an outage never keeps it down (docs/decisions.md §7).
 */
export async function boot(): Promise<Booted> {
  const e = parseEnv();
  setEnv(e);
  // First, so everything after (the pool's connections above all) sees whether tracing is on.
  await startTracing(e.tracing);
  // next-auth (the dashboard's sessions) takes its origin and base path from NEXTAUTH_URL.
  process.env.NEXTAUTH_URL = `${e.publicBaseUrl.replace(/\/$/, "")}${SESSION_BASE_PATH}`;
  const log = logger();

  let embedded: EmbeddedPostgres | null = null;
  let url = e.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres(e.dataDir);
    url = embedded.url;
    log.info(
      { dataDir: e.dataDir },
      "embedded PostgreSQL (PGlite) started; set DATABASE_URL to use a PostgreSQL server",
    );
  }
  setConnectionUrl(url);

  let stopping = false;
  let databaseUp: Promise<boolean>;
  try {
    await prepareDatabase(url);
    markDatabaseUp();
    databaseUp = Promise.resolve(true);
  } catch (err) {
    // The embedded database cannot be "down"; a configured one refusing credentials or migrations is a real failure.
    if (embedded || !isTransientError(err)) throw err;
    const failure = errorSummary(err);
    markDatabaseWaiting(publicDatabaseReason(err));
    log.warn(
      { err: failure },
      "the database cannot be reached: serving degraded (final statuses journaled, voice requests apologised to, everything else 503) until it is back",
    );
    databaseUp = retryUntilDone("database start-up (migrations)", () => prepareDatabase(url), {
      stopped: () => stopping,
      failedWith: failure,
    }).then((up) => {
      if (up) {
        markDatabaseUp();
        log.info("the database is reachable: migrations applied, leaving degraded mode");
      }
      return up;
    });
  }

  if (e.callbackAllowPrivate) {
    log.warn(
      "CALLBACK_ALLOW_PRIVATE=true: callback URLs may use http and private or loopback addresses. Never enable this in production.",
    );
  }

  return {
    env: e,
    embedded,
    databaseUp,
    async shutdown() {
      stopping = true;
      await disconnectDb();
      await embedded?.stop();
      // The spans of the shutdown itself are sent too (bounded by the exporter's timeout).
      await stopTracing().catch(() => undefined);
    },
  };
}

/** Migrations, then the one-time sealing of routing tokens: what must be done before the database serves requests. */
async function prepareDatabase(url: string): Promise<void> {
  const log = logger();
  const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 3_000 });
  // A connection the server drops while idle is reported here, never as an uncaught error.
  pool.on("error", (err) => log.warn({ err: err.message }, "the migration connection failed"));
  try {
    const applied = await applyMigrations(pool, path.join(process.cwd(), "prisma", "migrations"));
    if (applied.length) log.info({ applied }, "migrations applied");
  } finally {
    await pool.end();
  }

  const sealed = await sealLegacyRoutingTokens();
  if (sealed) log.info({ sealed }, "routing tokens of existing accounts encrypted; only their hashes are looked up");
}
