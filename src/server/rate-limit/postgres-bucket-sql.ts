import type pg from "pg";
import { pool } from "../db/client";
import { env } from "../env";
import type { BucketPolicy } from "./bucket-policy";

/**
 * The rate-limit bucket's SQL, on the process's pool. One statement: refill by
 * the time elapsed, take `n` tokens if the bucket holds `n` (all or nothing),
 * report what is left. SET expressions all see the row as it was before.
 * now() is when each transaction began, so a concurrent writer that began
 * later may already have stored a later time: elapsed time never goes below
 * zero and the stored time never moves back (else a bucket could go negative
 * and a Retry-After overshoot).
 */
const TAKE = `
  INSERT INTO "RateLimitBucket" AS b ("key", "tokens", "allowed", "updatedAt")
  VALUES ($1, $2::float8 - $4::float8, true, now())
  ON CONFLICT ("key") DO UPDATE SET
    "tokens" = CASE
      WHEN LEAST($2::float8, b."tokens" + GREATEST(0, EXTRACT(EPOCH FROM now() - b."updatedAt")::float8) * $3::float8) >= $4::float8
      THEN LEAST($2::float8, b."tokens" + GREATEST(0, EXTRACT(EPOCH FROM now() - b."updatedAt")::float8) * $3::float8) - $4::float8
      ELSE LEAST($2::float8, b."tokens" + GREATEST(0, EXTRACT(EPOCH FROM now() - b."updatedAt")::float8) * $3::float8)
    END,
    "allowed" = LEAST($2::float8, b."tokens" + GREATEST(0, EXTRACT(EPOCH FROM now() - b."updatedAt")::float8) * $3::float8) >= $4::float8,
    "updatedAt" = GREATEST(now(), b."updatedAt")
  RETURNING "tokens", "allowed"`;

const PRUNE = `DELETE FROM "RateLimitBucket" WHERE "updatedAt" < now() - make_interval(secs => $1::float8)`;

// Prepared once per connection on PostgreSQL; the embedded database's socket server gets plain statements.
function statement(name: string, text: string, values: unknown[]): pg.QueryConfig {
  return env().databaseUrl ? { name: `routekit_${name}`, text, values } : { text, values };
}

/** `n` must not exceed the policy's capacity (a fresh bucket starts full). */
export async function takeTokens(key: string, policy: BucketPolicy, n: number): Promise<{ taken: boolean; tokens: number }> {
  const { rows } = await pool().query<{ tokens: number; allowed: boolean }>(statement("rate_limit_take", TAKE, [key, policy.capacity, policy.refillPerSecond, n]));
  const row = rows[0];
  if (!row) throw new Error("rate limit upsert returned no row");
  return { taken: row.allowed, tokens: row.tokens };
}

/** Buckets idle long enough to be full again carry no information. */
export async function pruneBuckets(olderThanSeconds: number): Promise<number> {
  const result = await pool().query(statement("rate_limit_prune", PRUNE, [olderThanSeconds]));
  return result.rowCount ?? 0;
}
