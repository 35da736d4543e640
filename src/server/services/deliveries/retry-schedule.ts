/**
 * When to try a failed delivery again: roughly exponential, about 27 hours
 * over 8 attempts (the Standard Webhooks / Svix schedule), with up to 20%
 * added jitter so a receiver that comes back is not hit by every retry at
 * once. Jitter only adds, so the schedule never spans less than 24 hours.
 */
const DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 5 * 3600_000, 10 * 3600_000, 10 * 3600_000];
export const MAX_ATTEMPTS = DELAYS_MS.length + 1;
const MAX_RETRY_AFTER_MS = 24 * 3600_000;

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; reason: string };

/** `attempt` is how many attempts of this cycle have been made, the failed one included. */
export function nextRetry(opts: {
  attempt: number;
  status: number | null;
  retryAfterSeconds?: number | null;
  random?: () => number;
}): RetryDecision {
  // Standard Webhooks: 410 Gone means the receiver wants no more.
  if (opts.status === 410) return { retry: false, reason: "receiver answered 410 Gone" };
  if (opts.attempt >= MAX_ATTEMPTS) return { retry: false, reason: `gave up after ${MAX_ATTEMPTS} attempts` };
  const base = DELAYS_MS[opts.attempt - 1]!;
  const jittered = Math.round(base * (1 + 0.2 * (opts.random ?? Math.random)()));
  const asked =
    opts.retryAfterSeconds && opts.retryAfterSeconds > 0
      ? Math.min(opts.retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS)
      : 0;
  return { retry: true, delayMs: Math.max(jittered, asked) };
}

/** `Retry-After` as seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date = new Date()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
