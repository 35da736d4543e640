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
import { hashRoutingToken } from "../services/accounts/engine-voice-url";
import { TERMINAL_RANK } from "./call-status";
import type { AccountStatus } from "../../generated/prisma/enums";

type Queryable = Pick<pg.ClientBase, "query">;

function statement(name: string, text: string) {
  return (values: unknown[]): pg.QueryConfig => (env().databaseUrl ? { name: `routekit_${name}`, text, values } : { text, values });
}


export type EngineAccount = {
  id: string;
  status: AccountStatus;
  stripeCustomerId: string | null;
  currentPeriodStart: Date | null;
  currentPeriodEnd: Date | null;
  webhookSecretEnc: string;
  previousWebhookSecretEnc: string | null;
  previousWebhookSecretExpiresAt: Date | null;
};

/** The account's Twilio connection (decisions §10): every request of its calls must be signed with this token. */
export type EngineConnection = { accountSid: string; authTokenEnc: string };

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
  providerAccountSid: string | null;
  providerAuthTokenEnc: string | null;
  /** How far the call got (call-status.ts); terminal once it ended. */
  statusRank: number;
};

const CALL_COLUMNS = `c."id", c."accountId", c."callSid", c."direction", c."fromNumber", c."toNumber", c."phoneNumberId", c."metadata",
  c."statusRank", c."answeredBy", c."onCallStartUrl", c."onCallEndUrl", c."onErrorUrl", c."providerAccountSid", c."providerAuthTokenEnc"`;

// The call log's columns (call-log.ts) are no part of deciding a call; the TwiML alone may be 16 KiB.
const LOG_COLUMNS = `- 'answer' - 'errorCode' - 'errorMessage' - 'twiml'`;

const LOOKUP_SELECT = `
  SELECT a."id", a."status", a."stripeCustomerId", ${utcColumn('a."currentPeriodStart"', "currentPeriodStart")},
    ${utcColumn('a."currentPeriodEnd"', "currentPeriodEnd")}, a."webhookSecretEnc", a."previousWebhookSecretEnc",
    ${utcColumn('a."previousWebhookSecretExpiresAt"', "previousWebhookSecretExpiresAt")},
    n."id" AS "numberId", n."onCallStartUrl" AS "numberStartUrl", n."onCallEndUrl" AS "numberEndUrl", n."onErrorUrl" AS "numberErrorUrl",
    tc."accountSid" AS "connectionAccountSid", tc."authTokenEnc" AS "connectionAuthTokenEnc",
    to_jsonb(c) - 'createdAt' - 'updatedAt' - 'answeredAt' - 'endedAt' - 'lastRequestAt' - 'reconciledAt' ${LOG_COLUMNS} AS "call"
  FROM "Account" a
  LEFT JOIN "PhoneNumber" n ON n."phoneNumber" = $2 AND n."accountId" = a."id" AND n."isActive"
  LEFT JOIN "TwilioConnection" tc ON tc."accountId" = a."id"`;

// An outbound call is found by our own id (on its URLs), and only within the account; any other by its SID.
// The routing token is found by its hash: the current one, or the one before a rotation for 24 hours.
const TOKEN_MATCH = `(a."routingTokenHash" = $1 OR (a."previousRoutingTokenHash" = $1 AND a."previousRoutingTokenExpiresAt" > ${UTC_NOW}))`;
const lookupBySidSql = statement("engine_lookup_by_sid", `${LOOKUP_SELECT} LEFT JOIN "Call" c ON c."callSid" = $3 WHERE ${TOKEN_MATCH}`);
const lookupByIdSql = statement("engine_lookup_by_id", `${LOOKUP_SELECT} LEFT JOIN "Call" c ON c."id" = $3 AND c."accountId" = a."id" WHERE ${TOKEN_MATCH}`);

type LookupRow = EngineAccount & {
  numberId: string | null;
  numberStartUrl: string;
  numberEndUrl: string;
  numberErrorUrl: string | null;
  connectionAccountSid: string | null;
  connectionAuthTokenEnc: string | null;
  call: EngineCall | null;
};

export type EngineLookup = { account: EngineAccount; number: EngineNumber | null; call: EngineCall | null; connection: EngineConnection | null };

/** The account behind an engine URL, the number called (active only) and the call, in one read. */
export async function lookupEngineRequest(opts: { routingToken: string; to: string; callSid: string; callId: string | null }): Promise<EngineLookup | null> {
  const tokenHash = hashRoutingToken(opts.routingToken);
  const query = opts.callId ? lookupByIdSql([tokenHash, opts.to, opts.callId]) : lookupBySidSql([tokenHash, opts.to, opts.callSid]);
  const { rows } = await pool().query<LookupRow>(query);
  const row = rows[0];
  if (!row) return null;
  const { numberId, numberStartUrl, numberEndUrl, numberErrorUrl, connectionAccountSid, connectionAuthTokenEnc, call, ...account } = row;
  return {
    account,
    number: numberId ? { id: numberId, onCallStartUrl: numberStartUrl, onCallEndUrl: numberEndUrl, onErrorUrl: numberErrorUrl } : null,
    call,
    connection: connectionAccountSid && connectionAuthTokenEnc ? { accountSid: connectionAccountSid, authTokenEnc: connectionAuthTokenEnc } : null,
  };
}

const insertInboundCallSql = statement(
  "engine_insert_inbound_call",
  `INSERT INTO "Call" ("id", "callSid", "accountId", "phoneNumberId", "direction", "fromNumber", "toNumber", "status", "statusRank",
     "onCallStartUrl", "onCallEndUrl", "onErrorUrl", "lastRequestAt", "reconciledAt", "createdAt", "updatedAt")
   VALUES ($1, $2, $3, $4, 'inbound', $5, $6, $7, $8, $9, $10, $11, ${UTC_NOW}, CASE WHEN $12::boolean THEN ${UTC_NOW} END, ${UTC_NOW}, ${UTC_NOW})
   ON CONFLICT ("callSid") DO NOTHING
   RETURNING ${CALL_COLUMNS.replaceAll("c.", "")}`,
);
const callBySidSql = statement("engine_call_by_sid", `SELECT ${CALL_COLUMNS} FROM "Call" c WHERE c."callSid" = $1`);

/**
 * Records an inbound call once per SID. Twilio retries a voice request it got no
 * answer to, so a second insert of the same SID yields the call already there.
 */
export async function insertInboundCall(call: NewInboundCall): Promise<EngineCall | null> {
  return (await insertInboundCallOnce(call)).call;
}

type NewInboundCall = Omit<EngineCall, "id" | "metadata" | "answeredBy" | "providerAccountSid" | "providerAuthTokenEnc" | "direction"> & {
  status: string;
  reconciled?: boolean;
};

/** The same, saying whether this insert made the row (`inserted`) or found it there. */
export async function insertInboundCallOnce(call: NewInboundCall): Promise<{ call: EngineCall | null; inserted: boolean }> {
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
      call.reconciled ?? false,
    ]),
  );
  if (rows[0]) return { call: rows[0], inserted: true };
  const existing = (await pool().query<EngineCall>(callBySidSql([call.callSid]))).rows[0];
  return { call: existing && existing.accountId === call.accountId ? existing : null, inserted: false };
}

const bindSidSql = statement("engine_bind_sid", `UPDATE "Call" SET "callSid" = $2, "lastRequestAt" = ${UTC_NOW}, "updatedAt" = ${UTC_NOW} WHERE "id" = $1 AND "callSid" LIKE 'pending:%'`);

/** An outbound call's SID, learnt from Twilio's first callback if it beats `calls.create` returning. */
export async function bindCallSid(callId: string, callSid: string): Promise<void> {
  await pool().query(bindSidSql([callId, callSid]));
}

// Each status request goes on the call's timeline (CallRequest) in the statement it runs anyway;
// a data-modifying CTE always runs, so duplicates and late statuses are on the timeline too.
const REQUEST_CTE = (callId: string, at: string, kind: number, status: number, seq: number) =>
  `WITH r AS (INSERT INTO "CallRequest" ("callId", "at", "kind", "callStatus", "sequenceNumber")
     SELECT ${callId}, ${at}, $${kind}, $${status}, $${seq}::integer WHERE $${kind}::text IS NOT NULL)`;

const advanceSql = statement(
  "engine_advance",
  `${REQUEST_CTE("$1", UTC_NOW, 6, 2, 7)}
   UPDATE "Call" SET "status" = CASE WHEN "statusRank" < $3 THEN $2 ELSE "status" END,
     "statusRank" = GREATEST("statusRank", $3),
     "answeredBy" = CASE WHEN "statusRank" < $3 THEN $4 ELSE "answeredBy" END,
     "answeredAt" = CASE WHEN "statusRank" < $3 AND $5::boolean THEN ${UTC_NOW} ELSE "answeredAt" END,
     "lastRequestAt" = ${UTC_NOW}, "updatedAt" = ${UTC_NOW}
   WHERE "id" = $1 AND "statusRank" < ${TERMINAL_RANK}`,
);

/** A request on the call's timeline: Twilio's status callback, or reconciliation reading Twilio's call record. */
export type TimelineRequest = { kind: "status" | "reconciliation"; sequenceNumber: number | null };

/**
 * Progress only moves forward: a duplicate or a late status changes nothing
 * but the time of Twilio's last request, which tells reconciliation the call
 * is still alive (in the statement the request runs anyway).
 */
export async function advanceCall(opts: {
  callId: string;
  status: string;
  rank: number;
  answeredBy: string | null;
  answered: boolean;
  /** Null when the request is logged elsewhere (a voice request: call-log.ts). */
  request: TimelineRequest | null;
}): Promise<void> {
  await pool().query(advanceSql([opts.callId, opts.status, opts.rank, opts.answeredBy, opts.answered, opts.request?.kind ?? null, opts.request?.sequenceNumber ?? null]));
}

const closeSql = statement(
  "engine_close",
  `${REQUEST_CTE("$1", utcParam(4), 8, 2, 9)}
   UPDATE "Call" SET "status" = $2, "statusRank" = $3, "endedAt" = ${utcParam(4)}, "durationSeconds" = $5,
     "answeredBy" = $6, "providerAuthTokenEnc" = NULL, "lastRequestAt" = ${UTC_NOW},
     "reconciledAt" = CASE WHEN $7::boolean THEN ${UTC_NOW} ELSE "reconciledAt" END, "updatedAt" = ${UTC_NOW},
     "errorCode" = CASE WHEN $2 = 'failed' AND "errorCode" IS NULL THEN 'CALL_FAILED' ELSE "errorCode" END,
     "errorMessage" = CASE WHEN $2 = 'failed' AND "errorCode" IS NULL THEN 'Twilio reported the call as failed.' ELSE "errorMessage" END
   WHERE "id" = $1 AND "statusRank" < $3`,
);

/**
 * Closes a call once: false when it was already closed (a duplicate, a late
 * callback, or reconciliation and a callback racing). The provider token goes with it.
 */
export async function closeCall(
  client: Queryable,
  opts: { callId: string; status: string; rank: number; endedAt: Date; durationSeconds: number; answeredBy: string | null; reconciled: boolean; request: TimelineRequest },
): Promise<boolean> {
  const { rowCount } = await client.query(
    closeSql([opts.callId, opts.status, opts.rank, opts.endedAt.toISOString(), opts.durationSeconds, opts.answeredBy, opts.reconciled, opts.request.kind, opts.request.sequenceNumber]),
  );
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

// ---- Reconciliation's reads (decisions §10): off the hot path, on the same shapes the close path takes.

const ACCOUNT_COLUMNS = `a."id", a."status", a."stripeCustomerId", ${utcColumn('a."currentPeriodStart"', "currentPeriodStart")},
    ${utcColumn('a."currentPeriodEnd"', "currentPeriodEnd")}, a."webhookSecretEnc", a."previousWebhookSecretEnc",
    ${utcColumn('a."previousWebhookSecretExpiresAt"', "previousWebhookSecretExpiresAt")}`;

/** The accounts with these ids, as the close path needs them. */
export async function engineAccounts(ids: string[]): Promise<Map<string, EngineAccount>> {
  if (!ids.length) return new Map();
  const { rows } = await pool().query<EngineAccount>(`SELECT ${ACCOUNT_COLUMNS} FROM "Account" a WHERE a."id" = ANY($1::text[])`, [ids]);
  return new Map(rows.map((a) => [a.id, a]));
}

export type StaleCall = { call: EngineCall; connection: EngineConnection };

/**
 * Calls of connected accounts still open with no request from Twilio since
 * `before`, oldest silence first (the index on statusRank, lastRequestAt).
 */
export async function staleOpenCalls(before: Date, limit: number): Promise<StaleCall[]> {
  const { rows } = await pool().query<{ call: EngineCall; accountSid: string; authTokenEnc: string }>(
    `SELECT to_jsonb(c) - 'createdAt' - 'updatedAt' - 'answeredAt' - 'endedAt' - 'lastRequestAt' - 'reconciledAt' ${LOG_COLUMNS} AS "call",
       tc."accountSid", tc."authTokenEnc"
     FROM "Call" c JOIN "TwilioConnection" tc ON tc."accountId" = c."accountId"
     WHERE c."statusRank" < ${TERMINAL_RANK} AND c."lastRequestAt" < ${utcParam(1)} AND c."callSid" NOT LIKE 'pending:%'
     ORDER BY c."lastRequestAt" LIMIT $2`,
    [before.toISOString(), limit],
  );
  return rows.map((r) => ({ call: r.call, connection: { accountSid: r.accountSid, authTokenEnc: r.authTokenEnc } }));
}

/** Twilio knows nothing final about the call yet: ask again after another quiet spell, and let the others have their turn. */
export async function postponeReconciliation(callId: string, at: Date): Promise<void> {
  await pool().query(`UPDATE "Call" SET "lastRequestAt" = ${utcParam(2)} WHERE "id" = $1 AND "statusRank" < ${TERMINAL_RANK}`, [callId, at.toISOString()]);
}

export type ReconcileTarget = EngineConnection & {
  accountId: string;
  connectedAt: Date;
  reconciledThrough: Date | null;
  numbers: (EngineNumber & { phoneNumber: string; createdAt: Date })[];
};

/** Every Twilio connection with the verified numbers its call list is read for. */
export async function reconcileTargets(): Promise<ReconcileTarget[]> {
  const { rows } = await pool().query<{
    accountId: string;
    accountSid: string;
    authTokenEnc: string;
    connectedAt: Date;
    reconciledThrough: Date | null;
    id: string;
    phoneNumber: string;
    onCallStartUrl: string;
    onCallEndUrl: string;
    onErrorUrl: string | null;
    createdAt: Date;
  }>(
    `SELECT tc."accountId", tc."accountSid", tc."authTokenEnc", ${utcColumn('tc."connectedAt"', "connectedAt")},
       ${utcColumn('tc."reconciledThrough"', "reconciledThrough")}, n."id", n."phoneNumber", n."onCallStartUrl", n."onCallEndUrl",
       n."onErrorUrl", ${utcColumn('n."createdAt"', "createdAt")}
     FROM "TwilioConnection" tc JOIN "PhoneNumber" n ON n."accountId" = tc."accountId" AND n."verified" AND n."isActive"
     ORDER BY tc."accountId"`,
  );
  const targets = new Map<string, ReconcileTarget>();
  for (const r of rows) {
    let t = targets.get(r.accountId);
    if (!t) {
      t = { accountId: r.accountId, accountSid: r.accountSid, authTokenEnc: r.authTokenEnc, connectedAt: r.connectedAt, reconciledThrough: r.reconciledThrough, numbers: [] };
      targets.set(r.accountId, t);
    }
    t.numbers.push({ id: r.id, phoneNumber: r.phoneNumber, onCallStartUrl: r.onCallStartUrl, onCallEndUrl: r.onCallEndUrl, onErrorUrl: r.onErrorUrl, createdAt: r.createdAt });
  }
  return [...targets.values()];
}

/** Moves the connection's watermark forward only: two runs at once never move it back. */
export async function advanceReconciledThrough(accountId: string, through: Date): Promise<void> {
  await pool().query(
    `UPDATE "TwilioConnection" SET "reconciledThrough" = GREATEST(COALESCE("reconciledThrough", ${utcParam(2)}), ${utcParam(2)}) WHERE "accountId" = $1`,
    [accountId, through.toISOString()],
  );
}
