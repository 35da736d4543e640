/**
 * A call and its account as the call flow reads them: the engine (its lookup, inserts and closes) and the
 * services that close, reconcile or simulate calls share these shapes and column lists, written once.
 */
import { sql, type Selectable } from "kysely";
import { kysely, type DB } from "../../db/kysely";

export const ACCOUNT_COLUMNS = [
  "a.id",
  "a.status",
  "a.stripeCustomerId",
  "a.currentPeriodStart",
  "a.currentPeriodEnd",
  "a.webhookSecretEnc",
  "a.previousWebhookSecretEnc",
  "a.previousWebhookSecretExpiresAt",
] as const;
type AccountColumn = (typeof ACCOUNT_COLUMNS)[number] extends `a.${infer C}` ? C : never;

/** What the engine knows of an account: its status, billing period and signing secrets. */
export type EngineAccount = Pick<Selectable<DB["Account"]>, AccountColumn>;

/** The account's Twilio connection (docs/decisions.md §10): every request of its calls must be signed with this token. */
export type EngineConnection = { accountSid: string; authTokenEnc: string };

export type EngineNumber = {
  id: string;
  onCallStartUrl: string;
  onCallEndUrl: string;
  onErrorUrl: string | null;
  /** docs/decisions.md §12: timeout, fallback, last resort; null for the defaults (and where no call is asked). */
  answerPolicy?: unknown;
  /** docs/decisions.md §19: its events go to the account's listeners while one is connected. */
  listen?: boolean;
  /** docs/decisions.md §23: the number's shadow backend, read with its routing (engine/shadow.ts); null for none. */
  shadow?: unknown;
};

// The call's columns that decide it; the call log's (answer, error, TwiML of up to 16 KiB) are no part of that.
export const CALL_COLUMNS = [
  "id",
  "accountId",
  "callSid",
  "direction",
  "fromNumber",
  "toNumber",
  "phoneNumberId",
  "metadata",
  "statusRank",
  "answeredBy",
  "onCallStartUrl",
  "onCallEndUrl",
  "onErrorUrl",
  "answerPolicy",
  "providerAccountSid",
  "providerAuthTokenEnc",
] as const;
type CallColumn = (typeof CALL_COLUMNS)[number];

/** A call as the engine decides it; `statusRank` says how far it got (call-status.ts), terminal once it ended. */
export type EngineCall = Pick<Selectable<DB["Call"]>, CallColumn>;

// The call's columns under the call_ prefix, so one joined row carries account, number, connection and call.
export const prefixedCallColumns = CALL_COLUMNS.map((c) => `c.${c} as call_${c}` as const);
export type PrefixedRow = { [K in CallColumn as `call_${K}`]: EngineCall[K] | null };

/**
 * The call as one json column, null when there is none (every new inbound call): a voice request's
 * lookup then returns 15 columns fewer for node-postgres to describe and parse on every request.
 * json carries every CALL_COLUMNS type as it is (text, int, jsonb).
 */
export const callAsJson = sql<EngineCall | null>`case when ${sql.ref("c.id")} is null then null else json_build_object(${sql.join(
  CALL_COLUMNS.flatMap((c) => [sql.lit(c), sql.ref(`c.${c}`)]),
)}) end`;

export function callFromRow(row: PrefixedRow): EngineCall | null {
  if (row.call_id === null) return null;
  return Object.fromEntries(CALL_COLUMNS.map((c) => [c, row[`call_${c}`]])) as EngineCall;
}

/** A new inbound call as its insert made it: what was sent, so nothing is read back (15 columns decoded per call otherwise). */
export function newCallRow(
  id: string,
  call: Pick<
    EngineCall,
    | "callSid"
    | "accountId"
    | "phoneNumberId"
    | "fromNumber"
    | "toNumber"
    | "statusRank"
    | "onCallStartUrl"
    | "onCallEndUrl"
    | "onErrorUrl"
    | "answerPolicy"
  >,
): EngineCall {
  return {
    id,
    direction: "inbound",
    metadata: null,
    answeredBy: null,
    providerAccountSid: null,
    providerAuthTokenEnc: null,
    ...call,
  };
}

/** The accounts with these ids, as the close path needs them. */
export async function engineAccounts(ids: string[]): Promise<Map<string, EngineAccount>> {
  if (!ids.length) return new Map();
  const rows = await kysely()
    .selectFrom("Account as a")
    .select(ACCOUNT_COLUMNS)
    .where((eb) => eb("a.id", "=", eb.fn.any(eb.val(ids))))
    .execute();
  return new Map(rows.map((a) => [a.id, a]));
}

/**
 * The columns a new inbound call's row is written with, wherever it is written (the lookup's insert, the
 * insert on a cached routing, insert-call.ts, a rejected call): one list, so a column added to a new call
 * is added once, and each statement's values are a record over it that the compiler checks is complete.
 */
export const NEW_INBOUND_COLUMNS = [
  "id",
  "callSid",
  "accountId",
  "phoneNumberId",
  "direction",
  "fromNumber",
  "toNumber",
  "status",
  "statusRank",
  "onCallStartUrl",
  "onCallEndUrl",
  "onErrorUrl",
  "answerPolicy",
] as const;
export type NewInboundColumn = (typeof NEW_INBOUND_COLUMNS)[number];

/** A new inbound call's values as an INSERT … SELECT takes them: each named as its column, in the list's order. */
export function newInboundSelection<R extends Record<NewInboundColumn, { as(alias: string): unknown }>>(values: R) {
  return NEW_INBOUND_COLUMNS.map((column) => values[column].as(column)) as ReturnType<R[NewInboundColumn]["as"]>[];
}
