/** A token bucket: `capacity` is the burst, `refillPerSecond` the sustained rate. */
export type BucketPolicy = { capacity: number; refillPerSecond: number };
/** `remaining`: whole tokens left in the bucket after this take, as the store last saw it (the RateLimit header). */
export type TakeResult = { allowed: boolean; retryAfterSeconds: number; remaining: number };

export interface RateLimitStore {
  take(key: string, policy: BucketPolicy): Promise<TakeResult>;
  /** Housekeeping of a store that keeps buckets in PostgreSQL. */
  prune?(): Promise<number>;
  /** "ok", or what is wrong, for a store with a dependency readiness should name (Redis). */
  health?(): string;
}

/** Whole seconds until the bucket holds a token again (at least 1, for Retry-After). */
export function retryAfter(tokens: number, policy: BucketPolicy): number {
  return Math.max(1, Math.ceil((1 - tokens) / policy.refillPerSecond));
}
