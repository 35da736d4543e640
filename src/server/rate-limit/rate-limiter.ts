import { metrics } from "../metrics/metrics";
import { Redis, type RedisOptions } from "ioredis";
import { AppError } from "../errors/app-error";
import { env } from "../env";
import { retryAfter, type BucketPolicy, type RateLimitStore, type TakeResult } from "./bucket-policy";
import { LeasedRateLimitStore } from "./leased-rate-limit-store";
import { pruneBuckets, takeTokens } from "./postgres-bucket-sql";
import { remember } from "../runtime/remember";
import { errorSummary } from "../db/database-availability";
import { logger } from "../logger";

/**
 * Token buckets kept where every instance sees them, never only in process
 * memory: Redis when REDIS_URL is set (one script call per request), otherwise
 * PostgreSQL, taken a lease of tokens at a time (leased-rate-limit-store.ts).
 * Redis is never a single point of failure: while it cannot answer within
 * tens of milliseconds, the PostgreSQL buckets take over (FailoverRateLimitStore).
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
  /** docs/decisions.md §20: POST /api/webhook-deliveries/test, 10 a minute per account. */
  webhookTest: { capacity: 10, refillPerSecond: 10 / 60 },
  /** docs/decisions.md §20: POST /api/webhook-deliveries/replay, once a minute per account. */
  webhookReplay: { capacity: 1, refillPerSecond: 1 / 60 },
  /** docs/decisions.md §21: POST /api/phone-numbers/{id}/simulate-call, 10 a minute per account. */
  simulateCall: { capacity: 10, refillPerSecond: 10 / 60 },
  /** docs/decisions.md §23: POST /api/calls/{callSid}/replay, 10 a minute per account. */
  callReplay: { capacity: 10, refillPerSecond: 10 / 60 },
} as const satisfies Record<string, BucketPolicy>;

const PRUNE_AFTER_SECONDS = 3600;

/** The PostgreSQL bucket taken one token per request: exact, one write each. */
export class PostgresRateLimitStore implements RateLimitStore {
  async take(key: string, policy: BucketPolicy): Promise<TakeResult> {
    const { taken, tokens } = await takeTokens(key, policy, 1);
    return { allowed: taken, retryAfterSeconds: taken ? 0 : retryAfter(tokens, policy), remaining: Math.floor(tokens) };
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
    return {
      allowed: allowed === 1,
      retryAfterSeconds: allowed === 1 ? 0 : retryAfter(Number(tokens), policy),
      remaining: Math.floor(Number(tokens)),
    };
  }
}

/**
 * Every Redis command gets this long, then fails: a Redis that is stopped or
 * frozen costs a request at most this, once, before the fallback takes over.
 */
const REDIS_COMMAND_TIMEOUT_MS = 50;
/** How often Redis is tried again while the fallback serves. */
const REDIS_PROBE_INTERVAL_MS = 1_000;

/**
 * Bounded everything: no offline queue (a command sent while Redis is away
 * fails at once and is never replayed later, so a returning Redis sees no
 * burst of stale takes), no retries, a time-out on every command and on connecting.
 */
function redisOptions(): RedisOptions {
  return {
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 1_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  };
}

/**
 * Redis buckets while Redis answers; the PostgreSQL buckets (leased, as
 * without Redis) from the first failure until a probe finds Redis answering
 * again. Each switch is logged once and shown in readiness. The two stores
 * keep separate buckets, so a switch starts the clients' buckets afresh in
 * the other store: at worst one extra burst per switch, never a burst of 429.
 */
class FailoverRateLimitStore implements RateLimitStore {
  private readonly primary: RedisRateLimitStore;
  private up = false;
  private logged = false;
  private reason = "not connected yet";
  private probeTimer: NodeJS.Timeout | null = null;
  private probing = false;

  constructor(
    private readonly redis: Redis,
    private readonly fallback: RateLimitStore = new LeasedPostgresRateLimitStore(),
  ) {
    this.primary = new RedisRateLimitStore(redis);
    // ioredis prints "[ioredis] Unhandled error event" to stderr for an error nobody listens to.
    redis.on("error", (err: Error) => this.down(err));
    redis.on("close", () => this.down(new Error("connection closed")));
    redis.on("ready", () => void this.probe());
  }

  async take(key: string, policy: BucketPolicy): Promise<TakeResult> {
    if (this.up) {
      try {
        return await this.primary.take(key, policy);
      } catch (err) {
        this.down(err);
      }
    }
    return this.fallback.take(key, policy);
  }

  prune(): Promise<number> {
    return this.fallback.prune?.() ?? Promise.resolve(0);
  }

  health(): string {
    return this.up ? "ok" : `unreachable (${this.reason}), rate limits on PostgreSQL`;
  }

  private down(err: unknown): void {
    this.reason = errorSummary(err);
    if (this.up || !this.logged) {
      logger().warn({ err: this.reason }, "Redis unreachable: rate limits on PostgreSQL until it answers again");
      this.logged = true;
    }
    this.up = false;
    this.probeTimer ??= setInterval(() => void this.probe(), REDIS_PROBE_INTERVAL_MS);
    this.probeTimer.unref();
  }

  /** One PING at a time, and only on a connection that is open (a frozen Redis keeps it open and times out). */
  private async probe(): Promise<void> {
    if (this.up || this.probing || this.redis.status !== "ready") return;
    this.probing = true;
    try {
      await this.redis.ping();
      this.up = true;
      if (this.probeTimer) clearInterval(this.probeTimer);
      this.probeTimer = null;
      logger().info(
        this.logged ? "Redis answers again: rate limits back on Redis" : "Redis reachable: rate limits on Redis",
      );
      this.logged = true;
    } catch (err) {
      this.down(err);
    } finally {
      this.probing = false;
    }
  }
}

export function rateLimitStore(): RateLimitStore {
  return remember("rateLimitStore", () => {
    const url = env().redisUrl;
    return url ? new FailoverRateLimitStore(new Redis(url, redisOptions())) : new LeasedPostgresRateLimitStore();
  });
}

/** Takes one token from each bucket in turn, each with its own policy; the first empty one is a 429. */
export async function enforceRateLimits(
  limits: { key: string; policy: BucketPolicy }[],
  report?: (result: TakeResult, policy: BucketPolicy) => void,
): Promise<void> {
  const store = rateLimitStore();
  for (const { key, policy } of limits) {
    const result = await store.take(key, policy);
    report?.(result, policy);
    if (!result.allowed) {
      metrics().rateLimitRejections.inc();
      throw new AppError("RATE_LIMITED", undefined, { retryAfter: result.retryAfterSeconds });
    }
  }
}

/**
 * Takes one token from each bucket; the first empty one is a 429. `report`
 * hears the last bucket's state (allowed or not) before anything is thrown,
 * so the answer can carry the RateLimit headers either way.
 */
export async function enforceRateLimit(
  keys: string[],
  policy: BucketPolicy,
  report?: (result: TakeResult) => void,
): Promise<void> {
  const store = rateLimitStore();
  for (const key of keys) {
    const result = await store.take(key, policy);
    report?.(result);
    if (!result.allowed) {
      metrics().rateLimitRejections.inc();
      throw new AppError("RATE_LIMITED", undefined, { retryAfter: result.retryAfterSeconds });
    }
  }
}

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers) for a token
 * bucket: the policy's quota is its burst, over the window in which an empty
 * bucket fills again; `t` is the seconds until this client's bucket is full.
 */
export function rateLimitFields(name: string, policy: BucketPolicy, remaining: number): Record<string, string> {
  const left = Math.max(0, Math.min(policy.capacity, remaining));
  const window = Math.ceil(policy.capacity / policy.refillPerSecond);
  const untilFull = Math.ceil((policy.capacity - left) / policy.refillPerSecond);
  return {
    "ratelimit-policy": `"${name}";q=${policy.capacity};w=${window}`,
    ratelimit: `"${name}";r=${left};t=${untilFull}`,
  };
}
