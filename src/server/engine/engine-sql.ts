/**
 * The engine's statements, in plain SQL on the shared `pg` pool. Twilio gives a
 * call 15 seconds and the customer's backend owns most of them, so a voice
 * request costs two statements (one joined read, one insert) and a final status
 * one transaction. On a PostgreSQL server each statement is prepared once per
 * connection; the embedded database multiplexes connections onto one backend,
 * where named statements would collide, so there they are sent unnamed.
 *
 * Timestamps are written and read as Prisma does (db/sql-time.ts).
 */
import type pg from "pg";
import { pool } from "../db/client";
import { cuid } from "../db/cuid";
import { UTC_NOW, utcColumn, utcParam } from "../db/sql-time";
import { env } from "../env";

type Queryable = Pick<pg.ClientBase, "query">;

function statement(name: string, text: string) {
  return (values: unknown[]): pg.QueryConfig => (env().databaseUrl ? { name: `routekit_${name}`, text, values } : { text, values });
}


export type EngineAccount = {
  id: string;
  status: "INACTIVE" | "ACTIVE" | "SUSPENDED";
  stripeCustomerId: string | null;
  currentPeriodStart: Date | null;
  currentPeriodEnd: Date | null;
  webhookSecretEnc: string;
  previousWebhookSecretEnc: string | null;
  previousWebhookSecretExpiresAt: Date | null;
};

export type EngineNumber = { id: string; onCallStartUrl: string; onCallEndUrl: string; onErrorUrl: string | null };

export type EngineCall = {
  id: string;
  accountId: string;
  callSid: string;
  direction: string;
  fromNumber: string;
  toNumber: string;
  phoneNumberId: string | null;
  metadata: unknown;
  answeredBy: string | null;
  onCallStartUrl: string;
  onCallEndUrl: string;
  onErrorUrl: string | null;
  providerAuthTokenEnc: string | null;
  /** How far the call got (call-status.ts); terminal once it ended. */
  statusRank: number;
};

const CALL_COLUMNS = `c."id", c."accountId", c."callSid", c."direction", c."fromNumber", c."toNumber", c."phoneNumberId", c."metadata",
  c."statusRank", c."answeredBy", c."onCallStartUrl", c."onCallEndUrl", c."onErrorUrl", c."providerAuthTokenEnc"`;

const LOOKUP_SELECT = `
  SELECT a."id", a."status", a."stripeCustomerId", ${utcColumn('a."currentPeriodStart"', "currentPeriodStart")},
    ${utcColumn('a."currentPeriodEnd"', "currentPeriodEnd")}, a."webhookSecretEnc", a."previousWebhookSecretEnc",
    ${utcColumn('a."previousWebhookSecretExpiresAt"', "previousWebhookSecretExpiresAt")},
    n."id" AS "numberId", n."onCallStartUrl" AS "numberStartUrl", n."onCallEndUrl" AS "numberEndUrl", n."onErrorUrl" AS "numberErrorUrl",
    to_jsonb(c) - 'createdAt' - 'updatedAt' - 'answeredAt' - 'endedAt' AS "call"
  FROM "Account" a
  LEFT JOIN "PhoneNumber" n ON n."phoneNumber" = $2 AND n."accountId" = a."id" AND n."isActive"`;

// An outbound call is found by our own id (on its URLs), and only within the account; any other by its SID.
const lookupBySidSql = statement("engine_lookup_by_sid", `${LOOKUP_SELECT} LEFT JOIN "Call" c ON c."callSid" = $3 WHERE a."routingToken" = $1`);
const lookupByIdSql = statement("engine_lookup_by_id", `${LOOKUP_SELECT} LEFT JOIN "Call" c ON c."id" = $3 AND c."accountId" = a."id" WHERE a."routingToken" = $1`);

type LookupRow = EngineAccount & {
  numberId: string | null;
  numberStartUrl: string;
  numberEndUrl: string;
  numberErrorUrl: string | null;
  call: EngineCall | null;
};

export type EngineLookup = { account: EngineAccount; number: EngineNumber | null; call: EngineCall | null };

/** The account behind an engine URL, the number called (active only) and the call, in one read. */
export async function lookupEngineRequest(opts: { routingToken: string; to: string; callSid: string; callId: string | null }): Promise<EngineLookup | null> {
  const query = opts.callId ? lookupByIdSql([opts.routingToken, opts.to, opts.callId]) : lookupBySidSql([opts.routingToken, opts.to, opts.callSid]);
  const { rows } = await pool().query<LookupRow>(query);
  const row = rows[0];
  if (!row) return null;
  const { numberId, numberStartUrl, numberEndUrl, numberErrorUrl, call, ...account } = row;
  return {
    account,
    number: numberId ? { id: numberId, onCallStartUrl: numberStartUrl, onCallEndUrl: numberEndUrl, onErrorUrl: numberErrorUrl } : null,
    call,
  };
}

const insertInboundCallSql = statement(
  "engine_insert_inbound_call",
  `INSERT INTO "Call" ("id", "callSid", "accountId", "phoneNumberId", "direction", "fromNumber", "toNumber", "status", "statusRank",
     "onCallStartUrl", "onCallEndUrl", "onErrorUrl", "createdAt", "updatedAt")
   VALUES ($1, $2, $3, $4, 'inbound', $5, $6, $7, $8, $9, $10, $11, ${UTC_NOW}, ${UTC_NOW})
   ON CONFLICT ("callSid") DO NOTHING
   RETURNING ${CALL_COLUMNS.replaceAll("c.", "")}`,
);
const callBySidSql = statement("engine_call_by_sid", `SELECT ${CALL_COLUMNS} FROM "Call" c WHERE c."callSid" = $1`);

/**
 * Records an inbound call once per SID. Twilio retries a voice request it got no
 * answer to, so a second insert of the same SID yields the call already there.
 */
export async function insertInboundCall(call: Omit<EngineCall, "id" | "metadata" | "answeredBy" | "providerAuthTokenEnc" | "direction"> & { status: string }): Promise<EngineCall | null> {
  const { rows } = await pool().query<EngineCall>(
    insertInboundCallSql([
      cuid(),
      call.callSid,
      call.accountId,
      call.phoneNumberId,
      call.fromNumber,
      call.toNumber,
      call.status,
      call.statusRank,
      call.onCallStartUrl,
      call.onCallEndUrl,
      call.onErrorUrl,
    ]),
  );
  if (rows[0]) return rows[0];
  const existing = (await pool().query<EngineCall>(callBySidSql([call.callSid]))).rows[0];
  return existing && existing.accountId === call.accountId ? existing : null;
}

const bindSidSql = statement("engine_bind_sid", `UPDATE "Call" SET "callSid" = $2, "updatedAt" = ${UTC_NOW} WHERE "id" = $1 AND "callSid" LIKE 'pending:%'`);

/** An outbound call's SID, learnt from Twilio's first callback if it beats `calls.create` returning. */
export async function bindCallSid(callId: string, callSid: string): Promise<void> {
  await pool().query(bindSidSql([callId, callSid]));
}

const advanceSql = statement(
  "engine_advance",
  `UPDATE "Call" SET "status" = $2, "statusRank" = $3, "answeredBy" = $4,
     "answeredAt" = CASE WHEN $5::boolean THEN ${UTC_NOW} ELSE "answeredAt" END, "updatedAt" = ${UTC_NOW}
   WHERE "id" = $1 AND "statusRank" < $3`,
);

/** Progress only moves forward: a duplicate or a late status changes nothing. */
export async function advanceCall(opts: { callId: string; status: string; rank: number; answeredBy: string | null; answered: boolean }): Promise<void> {
  await pool().query(advanceSql([opts.callId, opts.status, opts.rank, opts.answeredBy, opts.answered]));
}

const closeSql = statement(
  "engine_close",
  `UPDATE "Call" SET "status" = $2, "statusRank" = $3, "endedAt" = ${utcParam(4)}, "durationSeconds" = $5,
     "answeredBy" = $6, "providerAuthTokenEnc" = NULL, "updatedAt" = ${UTC_NOW}
   WHERE "id" = $1 AND "statusRank" < $3`,
);

/** Closes a call once: false when it was already closed (a duplicate or a late callback). The provider token goes with it. */
export async function closeCall(client: Queryable, opts: { callId: string; status: string; rank: number; endedAt: Date; durationSeconds: number; answeredBy: string | null }): Promise<boolean> {
  const { rowCount } = await client.query(closeSql([opts.callId, opts.status, opts.rank, opts.endedAt.toISOString(), opts.durationSeconds, opts.answeredBy]));
  return rowCount === 1;
}

const insertUsageSql = statement(
  "engine_insert_usage",
  `INSERT INTO "UsageRecord" ("id", "accountId", "callSid", "phoneNumberId", "direction", "callerNumber", "calledNumber",
     "durationSeconds", "billedMinutes", "totalCost", "costBreakdown", "createdAt")
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::numeric, $11::jsonb, ${utcParam(12)})`,
);
const addToTotalsSql = statement(
  "engine_add_to_totals",
  `INSERT INTO "UsageTotal" ("accountId", "period", "calls", "billedMinutes", "totalCost", "updatedAt")
   SELECT $1, period, 1, $3, $4::numeric, ${UTC_NOW} FROM unnest($2::text[]) AS period
   ON CONFLICT ("accountId", "period") DO UPDATE SET
     "calls" = "UsageTotal"."calls" + 1,
     "billedMinutes" = "UsageTotal"."billedMinutes" + EXCLUDED."billedMinutes",
     "totalCost" = "UsageTotal"."totalCost" + EXCLUDED."totalCost",
     "updatedAt" = EXCLUDED."updatedAt"`,
);

export type UsageBreakdown = { durationSeconds: number; billedMinutes: number; totalCost: number };

/** A completed call's usage record, once per call SID (the table's unique key), in the caller's transaction. */
export async function insertUsageRecord(client: Queryable, opts: { call: EngineCall; breakdown: UsageBreakdown & Record<string, unknown>; at: Date }): Promise<void> {
  const { call, breakdown, at } = opts;
  await client.query(
    insertUsageSql([
      cuid(),
      call.accountId,
      call.callSid,
      call.phoneNumberId,
      call.direction,
      call.fromNumber,
      call.toNumber,
      breakdown.durationSeconds,
      breakdown.billedMinutes,
      String(breakdown.totalCost),
      JSON.stringify(breakdown),
      at.toISOString(),
    ]),
  );
}

/**
 * Adds a usage record to the running totals of every period it counts in, in
 * one statement. Every call of an account updates the same rows, so the caller
 * makes this its transaction's last statement: the row locks last one round
 * trip and the commit, not the whole transaction.
 */
export async function addToRunningTotals(client: Queryable, opts: { accountId: string; periods: string[]; billedMinutes: number; totalCost: number }): Promise<void> {
  await client.query(addToTotalsSql([opts.accountId, opts.periods, opts.billedMinutes, String(opts.totalCost)]));
}
