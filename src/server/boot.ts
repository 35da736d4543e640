import path from "node:path";
import pg from "pg";
import { applyMigrations } from "./db/apply-migrations";
import { disconnectDb, setConnectionUrl } from "./db/client";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./db/embedded-postgres";
import { parseEnv, setEnv, type Env } from "./env";
import { logger } from "./logger";
import { sealLegacyRoutingTokens } from "./services/accounts/engine-voice-url";
import { SESSION_BASE_PATH } from "../lib/session-path";

export type Booted = { env: Env; embedded: EmbeddedPostgres | null; shutdown(): Promise<void> };

/**
 * Everything the service needs before it takes a request: validated config,
 * a database (the configured one, or the embedded one), migrations applied.
 */
export async function boot(): Promise<Booted> {
  const e = parseEnv();
  setEnv(e);
  // next-auth (the dashboard's sessions) takes its origin and base path from NEXTAUTH_URL.
  process.env.NEXTAUTH_URL = `${e.publicBaseUrl.replace(/\/$/, "")}${SESSION_BASE_PATH}`;
  const log = logger();

  let embedded: EmbeddedPostgres | null = null;
  let url = e.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres(e.dataDir);
    url = embedded.url;
    log.info({ dataDir: e.dataDir }, "embedded PostgreSQL (PGlite) started; set DATABASE_URL to use a PostgreSQL server");
  }
  setConnectionUrl(url);

  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const applied = await applyMigrations(pool, path.join(process.cwd(), "prisma", "migrations"));
    if (applied.length) log.info({ applied }, "migrations applied");
  } finally {
    await pool.end();
  }

  const sealed = await sealLegacyRoutingTokens();
  if (sealed) log.info({ sealed }, "routing tokens of existing accounts encrypted; only their hashes are looked up");

  if (e.callbackAllowPrivate) {
    log.warn("CALLBACK_ALLOW_PRIVATE=true: callback URLs may use http and private or loopback addresses. Never enable this in production.");
  }

  return {
    env: e,
    embedded,
    async shutdown() {
      await disconnectDb();
      await embedded?.stop();
    },
  };
}
