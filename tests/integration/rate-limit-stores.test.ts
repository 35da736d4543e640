import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { parseEnv, setEnv } from "../../src/server/env";
import { disconnectDb, setConnectionUrl } from "../../src/server/db/client";
import { PostgresRateLimitStore, RedisRateLimitStore, type RateLimitStore } from "../../src/server/rate-limit/rate-limiter";

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
    await db().$executeRaw`UPDATE "RateLimitBucket" SET "updatedAt" = now() - interval '2 hours' WHERE key = ${stale}`;
    expect(await store.prune(3600)).toBeGreaterThanOrEqual(1);
    const left = await db().rateLimitBucket.findMany({ where: { key: { in: [stale, fresh] } }, select: { key: true } });
    expect(left.map((r) => r.key)).toEqual([fresh]);
  });
});
