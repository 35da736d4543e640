import { retryAfter, type BucketPolicy, type RateLimitStore, type TakeResult } from "./bucket-policy";

/** The shared bucket's one operation: take `n` tokens, all or nothing, and report what is left. */
export type SharedBucket = (
  key: string,
  policy: BucketPolicy,
  n: number,
) => Promise<{ taken: boolean; tokens: number }>;

/** A lease unused for this long is dropped, so leased tokens are spent near when they were taken. */
export const LEASE_TTL_MS = 1_000;

/**
 * Tokens taken from the shared bucket at once: a tenth of the burst, at most
 * 10, and never more than refills in one lease's life (so a dropped lease
 * wastes little). Slow buckets (login: 10 a minute) get 1, exact per request.
 */
export function leaseSize(policy: BucketPolicy): number {
  return Math.max(
    1,
    Math.min(10, Math.floor(policy.capacity / 10), Math.floor((policy.refillPerSecond * LEASE_TTL_MS) / 1000)),
  );
}

/** `lowUntil`: the bucket held less than a lease, so requests take single tokens until it could hold one again. */
type Lease = {
  tokens: number;
  expiresAt: number;
  deniedUntil: number;
  lowUntil: number;
  retryAfterSeconds: number;
  /** What the shared bucket held after the lease was taken: with `tokens`, the client's remaining as last seen. */
  sharedLeft: number;
};

/**
 * Token buckets in PostgreSQL without a write per request: each instance takes
 * tokens from the shared bucket a lease at a time and spends them from memory.
 * Every admitted request was paid for in the shared bucket first, so the
 * long-run rate is exact across instances; the bound on a burst is the
 * bucket's capacity plus what k instances may still hold, k × (lease − 1)
 * (for the API's 50/s with bursts of 100 and 4 instances: 136), spent within
 * LEASE_TTL_MS of being taken. When the bucket holds less than a lease, each
 * request takes its own token (exact); when it is empty, the refusal is kept
 * in memory until the next token is due, so a client over its limit costs no
 * writes. Unused tokens of a dropped lease are lost: at most lease − 1 per
 * instance per second, under-admission, never over.
 */
export class LeasedRateLimitStore implements RateLimitStore {
  private readonly leases = new Map<string, Lease>();
  private readonly refills = new Map<string, Promise<unknown>>();

  constructor(
    private readonly shared: SharedBucket,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async take(key: string, policy: BucketPolicy): Promise<TakeResult> {
    const size = leaseSize(policy);
    for (;;) {
      const lease = this.leases.get(key);
      const now = this.now();
      if (lease && lease.expiresAt > now) {
        if (lease.tokens >= 1) {
          lease.tokens--;
          return { allowed: true, retryAfterSeconds: 0, remaining: Math.floor(lease.sharedLeft + lease.tokens) };
        }
        if (lease.deniedUntil > now)
          return { allowed: false, retryAfterSeconds: lease.retryAfterSeconds, remaining: 0 };
      }
      // Without leases, or with the bucket too low for one, each request takes its own token.
      if (size === 1 || (lease && lease.lowUntil > now)) return this.takeOne(key, policy);
      const pending = this.refills.get(key);
      if (pending) {
        await pending;
        continue;
      }
      const refill = this.refill(key, policy, size).finally(() => this.refills.delete(key));
      this.refills.set(key, refill);
      const outcome = await refill;
      if (outcome) return outcome;
    }
  }

  /** Leases `size` tokens; when the bucket holds fewer, takes this request's one token itself and answers it. */
  private async refill(key: string, policy: BucketPolicy, size: number): Promise<TakeResult | undefined> {
    const leased = await this.shared(key, policy, size);
    if (leased.taken) {
      this.keep(key, {
        tokens: size,
        expiresAt: this.now() + LEASE_TTL_MS,
        deniedUntil: 0,
        lowUntil: 0,
        retryAfterSeconds: 0,
        sharedLeft: leased.tokens,
      });
      return undefined;
    }
    if (leased.tokens < 1) return this.refuse(key, policy, leased.tokens);
    const lowUntil = this.now() + ((size - leased.tokens) / policy.refillPerSecond) * 1000;
    this.keep(key, {
      tokens: 0,
      expiresAt: lowUntil,
      deniedUntil: 0,
      lowUntil,
      retryAfterSeconds: 0,
      sharedLeft: leased.tokens,
    });
    return this.takeOne(key, policy);
  }

  private async takeOne(key: string, policy: BucketPolicy): Promise<TakeResult> {
    const one = await this.shared(key, policy, 1);
    return one.taken
      ? { allowed: true, retryAfterSeconds: 0, remaining: Math.floor(one.tokens) }
      : this.refuse(key, policy, one.tokens);
  }

  private refuse(key: string, policy: BucketPolicy, tokens: number): TakeResult {
    const retryAfterSeconds = retryAfter(tokens, policy);
    const now = this.now();
    const deniedUntil = now + ((1 - tokens) / policy.refillPerSecond) * 1000;
    this.keep(key, {
      tokens: 0,
      expiresAt: Math.max(deniedUntil, now + 1),
      deniedUntil,
      lowUntil: 0,
      retryAfterSeconds,
      sharedLeft: 0,
    });
    return { allowed: false, retryAfterSeconds, remaining: 0 };
  }

  private keep(key: string, lease: Lease): void {
    this.leases.set(key, lease);
    // Expired leases carry nothing: sweep them now and then so idle keys do not pile up.
    if (this.leases.size > 10_000) {
      const now = this.now();
      for (const [k, l] of this.leases) if (l.expiresAt <= now) this.leases.delete(k);
    }
  }
}
