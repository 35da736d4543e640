import type pg from "pg";
import type { AccountStatus } from "@/generated/prisma/enums";
import { pool } from "../db/client";
import { utcColumn, utcParam } from "../db/sql-time";
import { env } from "../env";

/**
 * An API key's look-up in plain SQL on the process's pool: the REST path's one
 * round trip. Only active keys match, so a revoked key is refused by the same
 * read, on every instance, on its next request.
 */
const KEY_AND_ACCOUNT = `
  k.id AS "keyId", ${utcColumn('k."lastUsedAt"', "lastUsedAt")}, a.id, a.email, a.status::text AS status
  FROM "ApiKey" k JOIN "Account" a ON a.id = k."accountId"
  WHERE k."keyHash" = $1 AND k."revokedAt" IS NULL`;

/** The account as GET /api/account shows it, read by the same statement that checks the key. */
const WITH_ACCOUNT_READ = `
  SELECT a."companyName", ${utcColumn('a."createdAt"', "createdAt")}, a."webhookSecretEnc", a."routingTokenEnc", a."legacyRoutingToken",
    (SELECT count(*)::int FROM "PhoneNumber" p WHERE p."accountId" = a.id) AS "phoneNumbers",
    (SELECT count(*)::int FROM "ApiKey" ak WHERE ak."accountId" = a.id AND ak."revokedAt" IS NULL) AS "apiKeys",
    ${KEY_AND_ACCOUNT}`;

const TOUCH = `UPDATE "ApiKey" SET "lastUsedAt" = ${utcParam(2)} WHERE id = $1 AND ("lastUsedAt" IS NULL OR "lastUsedAt" < ${utcParam(3)})`;

// Prepared once per connection on PostgreSQL; the embedded database multiplexes connections, so there they go unnamed.
function statement(name: string, text: string, values: unknown[]): pg.QueryConfig {
  return env().databaseUrl ? { name: `routekit_${name}`, text, values } : { text, values };
}

export type KeyedAccount = { keyId: string; lastUsedAt: Date | null; id: string; email: string; status: AccountStatus };
export type AccountRead = {
  id: string;
  email: string;
  status: AccountStatus;
  companyName: string | null;
  createdAt: Date;
  webhookSecretEnc: string;
  routingTokenEnc: string | null;
  legacyRoutingToken: string | null;
  phoneNumbers: number;
  apiKeys: number;
};

export async function findActiveKey(keyHash: string): Promise<KeyedAccount | null> {
  const { rows } = await pool().query<KeyedAccount>(statement("api_key_account", `SELECT ${KEY_AND_ACCOUNT}`, [keyHash]));
  return rows[0] ?? null;
}

export async function findActiveKeyWithAccountRead(keyHash: string): Promise<(KeyedAccount & AccountRead) | null> {
  const { rows } = await pool().query<KeyedAccount & AccountRead>(statement("api_key_account_read", WITH_ACCOUNT_READ, [keyHash]));
  return rows[0] ?? null;
}

/** Conditional, so concurrent requests on several instances write `lastUsedAt` at most once a `resolutionMs`. */
export async function touchKey(keyId: string, now: Date, resolutionMs: number): Promise<void> {
  await pool().query(statement("api_key_touch", TOUCH, [keyId, now.toISOString(), new Date(now.getTime() - resolutionMs).toISOString()]));
}
