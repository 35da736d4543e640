import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { parseEnv, setEnv } from "../../src/server/env";
import { disconnectDb, pool, setConnectionUrl } from "../../src/server/db/client";
import {
  LeasedPostgresRateLimitStore,
  PostgresRateLimitStore,
  RedisRateLimitStore,
  type RateLimitStore,
} from "../../src/server/rate-limit/rate-limiter";
import { LeasedRateLimitStore, leaseSize, LEASE_TTL_MS } from "../../src/server/rate-limit/leased-rate-limit-store";
import { takeTokens } from "../../src/server/rate-limit/postgres-bucket-sql";
import { ago, seeds } from "../support/seed";

// The stores, driven directly against the real PostgreSQL (or the embedded one)
// and the real Redis, with several concurrent takers as several instances would be.
const redisUrl = process.env.REDIS_TEST_URL ?? "redis://127.0.0.1:6379";
let redis: Redis;

beforeAll(() => {
  setEnv(parseEnv({ DATA_DIR: mkdtempSync(path.join(tmpdir(), "routekit-rl-")), LOG_LEVEL: "silent" }));
  setConnectionUrl(inject("databaseUrl"));
  redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  await disconnectDb();
  redis.disconnect();
});

const stores: [string, () => RateLimitStore][] = [
  ["PostgreSQL", () => new PostgresRateLimitStore()],
  ["PostgreSQL, leased", () => new LeasedPostgresRateLimitStore()],
  ["Redis", () => new RedisRateLimitStore(redis)],
];

describe.each(stores)("%s token bucket", (_name, make) => {
  it("allows the burst, then refuses with a Retry-After", async () => {
    const store = make();
    const key = `test:${randomBytes(6).toString("hex")}`;
    const policy = { capacity: 5, refillPerSecond: 0.5 };
    const results = await Promise.all(Array.from({ length: 8 }, () => store.take(key, policy)));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    const refused = results.filter((r) => !r.allowed);
    expect(refused).toHaveLength(3);
    for (const r of refused) expect(r.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.every((r) => r.retryAfterSeconds <= 2)).toBe(true);
  });

  it("refills with time", async () => {
    const store = make();
    const key = `test:${randomBytes(6).toString("hex")}`;
    const policy = { capacity: 2, refillPerSecond: 10 };
    expect((await store.take(key, policy)).allowed).toBe(true);
    expect((await store.take(key, policy)).allowed).toBe(true);
    expect((await store.take(key, policy)).allowed).toBe(false);
    await new Promise((r) => setTimeout(r, 250));
    expect((await store.take(key, policy)).allowed).toBe(true);
  });

  it("keeps keys apart", async () => {
    const store = make();
    const policy = { capacity: 1, refillPerSecond: 0.01 };
    const a = `test:${randomBytes(6).toString("hex")}`;
    const b = `test:${randomBytes(6).toString("hex")}`;
    expect((await store.take(a, policy)).allowed).toBe(true);
    expect((await store.take(a, policy)).allowed).toBe(false);
    expect((await store.take(b, policy)).allowed).toBe(true);
  });
});

describe("PostgreSQL bucket housekeeping", () => {
  it("prunes buckets idle for longer than the horizon, and only those", async () => {
    const store = new PostgresRateLimitStore();
    const stale = `test:${randomBytes(6).toString("hex")}`;
    const fresh = `test:${randomBytes(6).toString("hex")}`;
    await store.take(stale, { capacity: 5, refillPerSecond: 1 });
    await store.take(fresh, { capacity: 5, refillPerSecond: 1 });
    const { db } = await import("../../src/server/db/client");
    await seeds(pool()).update("RateLimitBucket", { key: stale }, { updatedAt: ago("2 hours") });
    expect(await store.prune(3600)).toBeGreaterThanOrEqual(1);
    const left = await db().rateLimitBucket.findMany({ where: { key: { in: [stale, fresh] } }, select: { key: true } });
    expect(left.map((r) => r.key)).toEqual([fresh]);
  });
});

/** Leased stores over the real PostgreSQL bucket; `writes` counts the statements they send. */
function leasedInstances(count: number): { stores: LeasedRateLimitStore[]; writes: () => number } {
  let writes = 0;
  const counted: typeof takeTokens = (key, policy, n) => {
    writes++;
    return takeTokens(key, policy, n);
  };
  return { stores: Array.from({ length: count }, () => new LeasedRateLimitStore(counted)), writes: () => writes };
}

describe("PostgreSQL buckets leased to each instance", () => {
  it("lease sizes: a tenth of the burst, at most 10, never more than a second's refill; slow buckets stay exact", () => {
    expect(leaseSize({ capacity: 100, refillPerSecond: 50 })).toBe(10);
    expect(leaseSize({ capacity: 30, refillPerSecond: 5 })).toBe(3);
    expect(leaseSize({ capacity: 100, refillPerSecond: 100 / 3600 })).toBe(1);
    expect(leaseSize({ capacity: 10, refillPerSecond: 10 / 60 })).toBe(1);
  });

  it("the API's 50/s with bursts of 100 costs one write per lease, not per request", async () => {
    const { stores, writes } = leasedInstances(1);
    const key = `test:${randomBytes(6).toString("hex")}`;
    const policy = { capacity: 100, refillPerSecond: 50 };
    for (let i = 0; i < 60; i++) expect((await stores[0]!.take(key, policy)).allowed).toBe(true);
    expect(writes()).toBe(6);
  });

  it("three instances together never admit more than the shared bucket paid for", async () => {
    const { stores } = leasedInstances(3);
    const key = `test:${randomBytes(6).toString("hex")}`;
    const policy = { capacity: 100, refillPerSecond: 10 };
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => stores[i % 3]!.take(key, policy)));
    const elapsedSeconds = (performance.now() - started) / 1000;
    const allowed = results.filter((r) => r.allowed).length;
    // Refill during the run may add a few; leases left unspent on an instance may leave up to 3 × 9 unused.
    expect(allowed).toBeLessThanOrEqual(100 + Math.ceil(10 * elapsedSeconds) + 1);
    expect(allowed).toBeGreaterThanOrEqual(100 - 3 * 9);
    for (const r of results.filter((x) => !x.allowed)) expect(r.retryAfterSeconds).toBe(1);
  });

  it("an empty bucket's refusal is kept in memory until the next token is due: no write per refused request", async () => {
    const { stores, writes } = leasedInstances(1);
    const key = `test:${randomBytes(6).toString("hex")}`;
    const policy = { capacity: 20, refillPerSecond: 2 };
    for (let i = 0; i < 20; i++) expect((await stores[0]!.take(key, policy)).allowed).toBe(true);
    const before = writes();
    const refused = await Promise.all(Array.from({ length: 30 }, () => stores[0]!.take(key, policy)));
    expect(refused.every((r) => !r.allowed)).toBe(true);
    expect(writes() - before).toBeLessThanOrEqual(2);
    // At 2 a second the next token is due within half a second, and it is admitted.
    await new Promise((r) => setTimeout(r, 600));
    expect((await stores[0]!.take(key, policy)).allowed).toBe(true);
  });

  it("a lease left unspent is dropped after its time, so old tokens never add to a later burst", async () => {
    const { stores } = leasedInstances(2);
    const key = `test:${randomBytes(6).toString("hex")}`;
    const policy = { capacity: 100, refillPerSecond: 10 };
    // Instance 0 leases 10 tokens and spends 1; instance 1 drains what is left.
    expect((await stores[0]!.take(key, policy)).allowed).toBe(true);
    let drained = 0;
    while ((await stores[1]!.take(key, policy)).allowed) drained++;
    expect(drained).toBeGreaterThanOrEqual(90);
    await new Promise((r) => setTimeout(r, LEASE_TTL_MS + 50));
    // About 11 tokens refilled meanwhile: instance 0 must not spend its 9 stale ones on top.
    let allowed = 0;
    for (let i = 0; i < 30; i++) if ((await stores[0]!.take(key, policy)).allowed) allowed++;
    expect(allowed).toBeGreaterThanOrEqual(9);
    expect(allowed).toBeLessThanOrEqual(14);
  });
});
