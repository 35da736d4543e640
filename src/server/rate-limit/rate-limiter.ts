import { Redis } from "ioredis";
import { AppError } from "../errors/app-error";
import { env } from "../env";
import { retryAfter, type BucketPolicy, type RateLimitStore, type TakeResult } from "./bucket-policy";
import { LeasedRateLimitStore } from "./leased-rate-limit-store";
import { pruneBuckets, takeTokens } from "./postgres-bucket-sql";
import { remember } from "../runtime/remember";

/**
 * Token buckets kept where every instance sees them, never only in process
 * memory: Redis when REDIS_URL is set (one script call per request), otherwise
 * PostgreSQL, taken a lease of tokens at a time (leased-rate-limit-store.ts).
 */
export type { BucketPolicy, RateLimitStore, TakeResult };

export const POLICIES = {
  /** Login and register per client address (an IPv6 /64): 10 a minute. */
  authIp: { capacity: 10, refillPerSecond: 10 / 60 },
  /** Login and register per (email, client address): 10 a minute. */
  authPair: { capacity: 10, refillPerSecond: 10 / 60 },
  /** Login and register per email across all addresses: 100 an hour, the ceiling for a distributed guesser. */
  authEmail: { capacity: 100, refillPerSecond: 100 / 3600 },
  /** docs/decisions.md §5: 50 a second per account, bursts of 100. */
  api: { capacity: 100, refillPerSecond: 50 },
  /** Unauthenticated tRPC requests (the dashboard's log-in and sign-up), per IP: a person never comes close. */
  publicIp: { capacity: 30, refillPerSecond: 5 },
  /** decisions §20: POST /api/webhook-deliveries/test, 10 a minute per account. */
  webhookTest: { capacity: 10, refillPerSecond: 10 / 60 },
  /** decisions §20: POST /api/webhook-deliveries/replay, once a minute per account. */
  webhookReplay: { capacity: 1, refillPerSecond: 1 / 60 },
} as const satisfies Record<string, BucketPolicy>;

const PRUNE_AFTER_SECONDS = 3600;

/** The PostgreSQL bucket taken one token per request: exact, one write each. */
export class PostgresRateLimitStore implements RateLimitStore {
  async take(key: string, policy: BucketPolicy): Promise<TakeResult> {
    const { taken, tokens } = await takeTokens(key, policy, 1);
    return { allowed: taken, retryAfterSeconds: taken ? 0 : retryAfter(tokens, policy) };
  }

  prune(olderThanSeconds = PRUNE_AFTER_SECONDS): Promise<number> {
    return pruneBuckets(olderThanSeconds);
  }
}

/** The same PostgreSQL buckets, leased to this instance a few tokens at a time: no write per request. */
export class LeasedPostgresRateLimitStore extends LeasedRateLimitStore {
  constructor() {
    super(takeTokens);
  }

  prune(olderThanSeconds = PRUNE_AFTER_SECONDS): Promise<number> {
    return pruneBuckets(olderThanSeconds);
  }
}

const REDIS_SCRIPT = `
local cap = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1]) or cap
local ts = tonumber(state[2]) or now
tokens = math.min(cap, tokens + math.max(0, now - ts) * rate)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(cap / rate) + 60)
return { allowed, tostring(tokens) }
`;

export class RedisRateLimitStore implements RateLimitStore {
  constructor(private readonly redis: Redis) {}

  async take(key: string, policy: BucketPolicy): Promise<TakeResult> {
    const [allowed, tokens] = (await this.redis.eval(
      REDIS_SCRIPT,
      1,
      `routekit:rl:${key}`,
      String(policy.capacity),
      String(policy.refillPerSecond),
    )) as [number, string];
    return { allowed: allowed === 1, retryAfterSeconds: allowed === 1 ? 0 : retryAfter(Number(tokens), policy) };
  }
}

export function rateLimitStore(): RateLimitStore {
  return remember("rateLimitStore", () => {
    const url = env().redisUrl;
    return url ? new RedisRateLimitStore(new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true })) : new LeasedPostgresRateLimitStore();
  });
}

/** Takes one token from each bucket in turn, each with its own policy; the first empty one is a 429. */
export async function enforceRateLimits(limits: { key: string; policy: BucketPolicy }[]): Promise<void> {
  const store = rateLimitStore();
  for (const { key, policy } of limits) {
    const result = await store.take(key, policy);
    if (!result.allowed) throw new AppError("RATE_LIMITED", undefined, { retryAfter: result.retryAfterSeconds });
  }
}

/** Takes one token from each bucket; the first empty one is a 429. */
export async function enforceRateLimit(keys: string[], policy: BucketPolicy): Promise<void> {
  const store = rateLimitStore();
  for (const key of keys) {
    const result = await store.take(key, policy);
    if (!result.allowed) {
      throw new AppError("RATE_LIMITED", undefined, { retryAfter: result.retryAfterSeconds });
    }
  }
}
