import { sql } from "kysely";
import { executeCompiled, kysely, precompiled } from "../db/kysely";
import type { BucketPolicy } from "./bucket-policy";

/**
 * The rate-limit bucket's one statement: refill by the time elapsed, take `n`
 * tokens if the bucket holds `n` (all or nothing), report what is left. SET
 * expressions all see the row as it was before. now() is when each transaction
 * began, so a concurrent writer that began later may already have stored a
 * later time: elapsed time never goes below zero and the stored time never
 * moves back (else a bucket could go negative and a Retry-After overshoot).
 * Compiled once (db/kysely.ts): it runs for every leased or exact take.
 */
const take = precompiled((key: string, capacity: number, refillPerSecond: number, n: number) => {
  const refilled = sql<number>`LEAST(${capacity}::float8, "RateLimitBucket"."tokens" + GREATEST(0, EXTRACT(EPOCH FROM now() - "RateLimitBucket"."updatedAt")::float8) * ${refillPerSecond}::float8)`;
  return kysely()
    .insertInto("RateLimitBucket")
    .values({
      key,
      tokens: sql<number>`${capacity}::float8 - ${n}::float8`,
      allowed: true,
      updatedAt: sql<Date>`now()`,
    })
    .onConflict((oc) =>
      oc.column("key").doUpdateSet({
        tokens: sql<number>`CASE WHEN ${refilled} >= ${n}::float8 THEN ${refilled} - ${n}::float8 ELSE ${refilled} END`,
        allowed: sql<boolean>`${refilled} >= ${n}::float8`,
        updatedAt: sql<Date>`GREATEST(now(), "RateLimitBucket"."updatedAt")`,
      }),
    )
    .returning(["tokens", "allowed"]);
});

const prune = precompiled((olderThanSeconds: number) =>
  kysely()
    .deleteFrom("RateLimitBucket")
    .where("updatedAt", "<", sql<Date>`now() - make_interval(secs => ${olderThanSeconds}::float8)`),
);

/** `n` must not exceed the policy's capacity (a fresh bucket starts full). */
export async function takeTokens(
  key: string,
  policy: BucketPolicy,
  n: number,
): Promise<{ taken: boolean; tokens: number }> {
  const [row] = await executeCompiled(take(key, policy.capacity, policy.refillPerSecond, n));
  if (!row) throw new Error("rate limit upsert returned no row");
  return { taken: row.allowed, tokens: row.tokens };
}

/** Buckets idle long enough to be full again carry no information. */
export async function pruneBuckets(olderThanSeconds: number): Promise<number> {
  const result = await kysely().executeQuery(prune(olderThanSeconds));
  return Number(result.numAffectedRows ?? 0);
}
