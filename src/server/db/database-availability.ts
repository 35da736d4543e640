import { logger } from "../logger";
import { remember } from "../runtime/remember";

/**
 * Whether this instance has reached its database since it started, with its
 * migrations applied. An instance started while the database was down serves
 * degraded until then (main.ts): final statuses are journaled, voice requests
 * get an apology, everything else is 503. Remembered per process, so the
 * Next.js bundles see the same state as the custom server.
 */
export type DatabaseAvailability = { up: boolean; reason: string | null };

export function databaseAvailability(): DatabaseAvailability {
  return remember<DatabaseAvailability>("db.availability", () => ({ up: false, reason: "not connected yet" }));
}

export function markDatabaseUp(): void {
  Object.assign(databaseAvailability(), { up: true, reason: null });
}

export function markDatabaseWaiting(reason: string): void {
  Object.assign(databaseAvailability(), { up: false, reason });
}

/** What an error says in one line, for a log entry or a readiness check: its code, then its message. */
export function errorSummary(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  const message =
    err.message || (err instanceof AggregateError ? err.errors.map((e) => errorSummary(e)).join("; ") : err.name);
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * What an unauthenticated readiness probe may say about a database failure:
 * the socket-level code (ECONNREFUSED, ETIMEDOUT…) when there is one, never
 * the database's own words (its name, SQLSTATE and message stay in the log).
 */
export function publicDatabaseReason(err: unknown): string {
  const queue: unknown[] = [err];
  for (let i = 0; i < queue.length && i < 16; i++) {
    const e = queue[i] as { code?: unknown; cause?: unknown; errors?: unknown } | null;
    if (e === null || typeof e !== "object") continue;
    if (typeof e.code === "string" && /^E[A-Z]+$/.test(e.code)) return `unreachable: ${e.code}`;
    if (Array.isArray(e.errors)) queue.push(...e.errors);
    queue.push(e.cause);
  }
  return "unreachable: the database refused the connection or the query (details in the log)";
}

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 10_000;

/**
 * Runs `attempt` until it succeeds, waiting 0.5 s, then twice as long each
 * time up to 10 s. Logged once when it starts failing, again only when the
 * failure changes, and once when it succeeds: an outage of an hour is three
 * lines, not thousands. `stopped` ends the loop (the process is shutting down);
 * `failedWith` is the failure of an attempt the caller made (and logged) itself.
 */
export async function retryUntilDone(
  what: string,
  attempt: () => Promise<void>,
  opts: { stopped?: () => boolean; failedWith?: string } = {},
): Promise<boolean> {
  const stopped = opts.stopped ?? (() => false);
  let delay = FIRST_DELAY_MS;
  let lastFailure: string | null = opts.failedWith ?? null;
  if (lastFailure !== null) await new Promise((r) => setTimeout(r, delay).unref());
  for (;;) {
    if (stopped()) return false;
    try {
      await attempt();
      if (lastFailure !== null) logger().info({ what }, `${what}: done, after retrying`);
      return true;
    } catch (err) {
      const failure = errorSummary(err);
      if (failure !== lastFailure)
        logger().warn({ what, err: failure, retryEveryMs: MAX_DELAY_MS }, `${what}: failed; retrying with backoff`);
      lastFailure = failure;
    }
    await new Promise((r) => setTimeout(r, delay).unref());
    delay = Math.min(MAX_DELAY_MS, delay * 2);
  }
}
