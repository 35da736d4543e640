import { Redis } from "ioredis";
import { AppError } from "../errors/app-error";
import { db } from "../db/client";
import { env } from "../env";
import { remember } from "../runtime/remember";

/**
 * Token buckets kept where every instance sees them (PostgreSQL, or Redis when
 * REDIS_URL is set), never in process memory. `capacity` is the burst,
 * `refillPerSecond` the sustained rate.
 */
export type BucketPolicy = { capacity: number; refillPerSecond: number };
export type TakeResult = { allowed: boolean; retryAfterSeconds: number };

export interface RateLimitStore {
  take(key: string, policy: BucketPolicy): Promise<TakeResult>;
}

export const POLICIES = {
  /** Login and register per client address (an IPv6 /64): 10 a minute. */
  authIp: { capacity: 10, refillPerSecond: 10 / 60 },
  /** Login and register per (email, client address): 10 a minute. */
  authPair: { capacity: 10, refillPerSecond: 10 / 60 },
  /** Login and register per email across all addresses: 100 an hour, the ceiling for a distributed guesser. */
  authEmail: { capacity: 100, refillPerSecond: 100 / 3600 },
  /** decisions §5: 50 a second per account, bursts of 100. */
  api: { capacity: 100, refillPerSecond: 50 },
  /** Unauthenticated tRPC requests (the dashboard's log-in and sign-up), per IP: a person never comes close. */
  publicIp: { capacity: 30, refillPerSecond: 5 },
} as const satisfies Record<string, BucketPolicy>;

function retryAfter(tokens: number, policy: BucketPolicy): number {
  return Math.max(1, Math.ceil((1 - tokens) / policy.refillPerSecond));
}

/** One statement: refill by elapsed time, take a token if one is there, report. */
export class PostgresRateLimitStore implements RateLimitStore {
  async take(key: string, policy: BucketPolicy): Promise<TakeResult> {
    // SET expressions all see the row as it was before the update.
    const rows = await db().$queryRaw<{ tokens: number; allowed: boolean }[]>`
      INSERT INTO "RateLimitBucket" AS b ("key", "tokens", "allowed", "updatedAt")
      VALUES (${key}, ${policy.capacity - 1}::float8, true, now())
      ON CONFLICT ("key") DO UPDATE SET
        "tokens" = CASE
          WHEN LEAST(${policy.capacity}::float8, b."tokens" + EXTRACT(EPOCH FROM now() - b."updatedAt")::float8 * ${policy.refillPerSecond}::float8) >= 1
          THEN LEAST(${policy.capacity}::float8, b."tokens" + EXTRACT(EPOCH FROM now() - b."updatedAt")::float8 * ${policy.refillPerSecond}::float8) - 1
          ELSE LEAST(${policy.capacity}::float8, b."tokens" + EXTRACT(EPOCH FROM now() - b."updatedAt")::float8 * ${policy.refillPerSecond}::float8)
        END,
        "allowed" = LEAST(${policy.capacity}::float8, b."tokens" + EXTRACT(EPOCH FROM now() - b."updatedAt")::float8 * ${policy.refillPerSecond}::float8) >= 1,
        "updatedAt" = now()
      RETURNING "tokens", "allowed"`;
    const row = rows[0];
    if (!row) throw new Error("rate limit upsert returned no row");
    return { allowed: row.allowed, retryAfterSeconds: row.allowed ? 0 : retryAfter(row.tokens, policy) };
  }

  /** Buckets idle long enough to be full again carry no information. */
  async prune(olderThanSeconds = 3600): Promise<number> {
    return db().$executeRaw`DELETE FROM "RateLimitBucket" WHERE "updatedAt" < now() - make_interval(secs => ${olderThanSeconds}::float8)`;
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
    return url ? new RedisRateLimitStore(new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true })) : new PostgresRateLimitStore();
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
