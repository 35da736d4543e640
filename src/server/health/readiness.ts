import { sql } from "kysely";
import { databaseAvailability, errorSummary } from "../db/database-availability";
import { kysely } from "../db/kysely";
import { journalHealth, type JournalHealth } from "../engine/journal-health";
import { rateLimitStore } from "../rate-limit/rate-limiter";

/**
 * What /api/ready answers: each thing this instance needs, "ok" or what is
 * wrong with it. Ready means the database answers and the journal can take a
 * final status; Redis is named when configured but never makes an instance
 * unready, since the rate limits fall back to PostgreSQL without it.
 */
export type Readiness = {
  ready: boolean;
  checks: { database: string; journal: string; redis?: string };
  journal: Omit<JournalHealth, "check">;
};

/** A readiness probe answers quickly; a database slower than this is reported as such. */
const DATABASE_CHECK_MS = 2_000;

export async function readiness(): Promise<Readiness> {
  const [database, journal] = await Promise.all([databaseCheck(), journalHealth()]);
  const { check, ...journalState } = journal;
  const redis = rateLimitStore().health?.();
  return {
    ready: database === "ok" && check === "ok",
    checks: { database, journal: check, ...(redis !== undefined && { redis }) },
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
    return "ok";
  } catch (err) {
    return `unreachable: ${errorSummary(err)}`;
  } finally {
    clearTimeout(timer);
  }
}

/** One line naming what is wrong, for the error envelope's message. */
export function notReadyMessage(r: Readiness): string {
  const wrong = Object.entries(r.checks).filter(([, value]) => value !== "ok");
  return `Not ready: ${wrong.map(([name, value]) => `${name} ${value}`).join("; ")}.`;
}
