import { sql } from "kysely";
import { databaseAvailability, errorSummary, publicDatabaseReason } from "../db/database-availability";
import { logger } from "../logger";
import { kysely } from "../db/kysely";
import { journalHealth, type JournalHealth } from "../engine/journal-health";
import { rateLimitStore } from "../rate-limit/rate-limiter";
import { shuttingDown } from "./shutdown-state";
import { MESSAGE_MAX_CHARS } from "../../shared/schemas/bounds";

/**
 * What /api/ready answers: each thing this instance needs, "ok" or what is
 * wrong with it. Ready means the database answers and the journal can take a
 * final status; Redis is named when configured but never makes an instance
 * unready, since the rate limits fall back to PostgreSQL without it.
 */
export type Readiness = {
  ready: boolean;
  checks: { database: string; journal: string; redis?: string; instance?: string };
  journal: Omit<JournalHealth, "check">;
};

/** A readiness probe answers quickly; a database slower than this is reported as such. */
const DATABASE_CHECK_MS = 2_000;

// Per module graph: the failure last logged (a log line per change, not per probe), and a probe in
// flight that concurrent probes share; neither is a fact about the process.
let lastLoggedFailure: string | null = null;
// Per module graph: as above.
let inFlight: Promise<Readiness> | null = null;

/** Probes arriving together share one check: a load balancer's burst costs one query and one probe file. */
export function readiness(): Promise<Readiness> {
  inFlight ??= checkReadiness().finally(() => {
    inFlight = null;
  });
  return inFlight;
}

/** A check's words, within the API's bound for a sentence (shared/schemas/bounds.ts). */
const said = (text: string) => text.slice(0, MESSAGE_MAX_CHARS);

async function checkReadiness(): Promise<Readiness> {
  const [database, journal] = await Promise.all([databaseCheck(), journalHealth()]);
  const { check, ...journalState } = journal;
  const redis = rateLimitStore().health?.();
  // Read after the checks: a probe that began just before SIGTERM already says so.
  const stopping = shuttingDown();
  return {
    ready: database === "ok" && check === "ok" && !stopping,
    checks: {
      database: said(database),
      journal: said(check),
      ...(redis !== undefined && { redis: said(redis) }),
      ...(stopping && { instance: "shutting down" }),
    },
    journal: journalState,
  };
}

async function databaseCheck(): Promise<string> {
  const availability = databaseAvailability();
  if (!availability.up) return availability.reason ?? "not connected yet";
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      sql`SELECT 1`.execute(kysely()),
      new Promise(
        (_, reject) =>
          (timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_CHECK_MS} ms`)), DATABASE_CHECK_MS)),
      ),
    ]);
    lastLoggedFailure = null;
    return "ok";
  } catch (err) {
    // The probe is public: it names the kind of failure; the log keeps the database's own words, once per change.
    const detail = errorSummary(err);
    if (detail !== lastLoggedFailure) logger().warn({ err: detail }, "readiness: the database check failed");
    lastLoggedFailure = detail;
    return publicDatabaseReason(err);
  } finally {
    clearTimeout(timer);
  }
}

/** One line naming what is wrong, for the error envelope's message. */
export function notReadyMessage(r: Readiness): string {
  const wrong = Object.entries(r.checks).filter(([, value]) => value !== "ok");
  return `Not ready: ${wrong.map(([name, value]) => `${name} ${value}`).join("; ")}.`;
}
