/** Shared by the server page's prefetch and the client log: the same input, the same cache entry. */
export const PAGE_SIZE = 20;

/** A PENDING delivery whose next attempt is due within this window is worth watching. */
const SOON_MS = 60_000;
export const POLL_MS = 1_500;

export function dueSoon(d: { status: string; nextAttemptAt: string | null }): boolean {
  if (d.status !== "PENDING") return false;
  return d.nextAttemptAt === null || new Date(d.nextAttemptAt).getTime() - Date.now() < SOON_MS;
}

/** "HTTP 200", or the network error, as one line. */
export function attemptOutcome(a: { statusCode: number | null; error: string | null }): string {
  if (a.statusCode !== null) return `HTTP ${a.statusCode}`;
  return a.error ?? "no response";
}
