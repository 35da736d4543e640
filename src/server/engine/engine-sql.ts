/**
 * The engine's statements, in Kysely on the shared pool (db/kysely.ts). Twilio
 * gives a call 15 seconds and the customer's backend owns most of them, so a
 * new call's voice request costs one statement (a joined read that inserts the
 * call; two when the account's Twilio signature must be checked first) and a final
 * status one transaction; on a PostgreSQL server each is prepared once per
 * connection (db/prepared-statements.ts).
 */
import { sql, type CompiledQuery, type Kysely, type QueryCreator, type Selectable, type SqlBool } from "kysely";
import { newDatabaseId } from "../db/database-id";
import type { EventEnvelope } from "../webhooks/event-envelope";
import { endpointDeliveries, scheduleDeliveriesIn, wakeDeliveryWorker } from "../webhooks/enqueue-event";
import { sqlTransaction } from "../db/sql-transaction";
import { executeCompiled, kysely, now, precompiled, type DB } from "../db/kysely";
import { hashRoutingToken } from "../services/accounts/engine-voice-url";
import { usagePeriod } from "../services/usage/billed-minutes";
import { TERMINAL_RANK } from "./call-status";
import { metrics } from "../metrics/metrics";
import { cachedRouting, forgetRouting, rememberRouting } from "./routing-cache";

const ACCOUNT_COLUMNS = [
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
const prefixedCallColumns = CALL_COLUMNS.map((c) => `c.${c} as call_${c}` as const);
type PrefixedRow = { [K in CallColumn as `call_${K}`]: EngineCall[K] | null };

/**
 * The call as one json column, null when there is none (every new inbound call): a voice request's
 * lookup then returns 15 columns fewer for node-postgres to describe and parse on every request.
 * json carries every CALL_COLUMNS type as it is (text, int, jsonb).
 */
const callAsJson = sql<EngineCall | null>`case when ${sql.ref("c.id")} is null then null else json_build_object(${sql.join(
  CALL_COLUMNS.flatMap((c) => [sql.lit(c), sql.ref(`c.${c}`)]),
)}) end`;

function callFromRow(row: PrefixedRow): EngineCall | null {
  if (row.call_id === null) return null;
  return Object.fromEntries(CALL_COLUMNS.map((c) => [c, row[`call_${c}`]])) as EngineCall;
}

/**
 * docs/decisions.md §17: the guardrails a new inbound call meets, decided in the lookup's own read from the
 * running totals the final-status transaction keeps (no round trip of their own). The concurrency cap is
 * not here: it is decided by the insert's conditional increment, atomically.
 */
export type EngineGuard = {
  /** hardCap on and the month's usage cost at or past monthlyBudget. */
  spendCapReached: boolean;
  /** The number's minutes today at or past its dailyMinuteCap. */
  dailyCapReached: boolean;
  /** The account has maxConcurrentCalls: its new calls are admitted against the live count (insertLive). */
  countsLiveCalls: boolean;
};

export type EngineLookup = {
  account: EngineAccount;
  number: EngineNumber | null;
  call: EngineCall | null;
  connection: EngineConnection | null;
  guard: EngineGuard;
  /** The new inbound call the lookup's own statement inserted (lookupAndInsert: the plain case), else null. */
  inserted: EngineCall | null;
};

/** A new inbound call's row as its voice request gives it, for lookupAndInsert to insert in the plain case. */
export type InboundInsert = { fromNumber: string; status: string; statusRank: number };

// An outbound call is found by our own id (on its URLs), and only within the account; any other by its SID.
// The guardrails (docs/decisions.md §17) join only where they are set: an account without limits reads
// one primary-key miss more, and the month's and the number's day totals are read only under a cap.
function lookupQuery(
  db: QueryCreator<DB>,
  by: "sid" | "id",
  tokenHash: string,
  to: string,
  key: string,
  month: string,
  day: string,
) {
  return (
    db
      .selectFrom("Account as a")
      .leftJoin("PhoneNumber as n", (j) =>
        j.on("n.phoneNumber", "=", to).onRef("n.accountId", "=", "a.id").on("n.isActive", "=", true),
      )
      .leftJoin("TwilioConnection as tc", "tc.accountId", "a.id")
      .leftJoin("AccountLimit as l", "l.accountId", "a.id")
      .leftJoin("UsageTotal as um", (j) =>
        j
          .onRef("um.accountId", "=", "a.id")
          .on("um.period", "=", month)
          .on("l.hardCap", "=", true)
          .on("l.monthlyBudget", "is not", null),
      )
      .leftJoin("UsageTotal as ud", (j) =>
        j
          .onRef("ud.accountId", "=", "a.id")
          .on("ud.period", "=", sql<string>`'n:' || ${sql.ref("n.id")} || ':' || ${day}::text`)
          .on("n.dailyMinuteCap", "is not", null),
      )
      .leftJoin("Call as c", (j) =>
        by === "id" ? j.on("c.id", "=", key).onRef("c.accountId", "=", "a.id") : j.on("c.callSid", "=", key),
      )
      .select([
        ...ACCOUNT_COLUMNS,
        "n.id as numberId",
        "n.onCallStartUrl as numberStartUrl",
        "n.onCallEndUrl as numberEndUrl",
        "n.onErrorUrl as numberErrorUrl",
        "n.answerPolicy as numberAnswerPolicy",
        "tc.accountSid as connectionAccountSid",
        "tc.authTokenEnc as connectionAuthTokenEnc",
        callAsJson.as("call"),
        sql<boolean>`coalesce(${sql.ref("l.hardCap")} and ${sql.ref("um.totalCost")} >= ${sql.ref("l.monthlyBudget")}, ${sql.ref("l.hardCap")} and ${sql.ref("l.monthlyBudget")} <= 0, false)`.as(
          "spendCapReached",
        ),
        sql<boolean>`(coalesce(${sql.ref("ud.billedMinutes")}, 0) >= ${sql.ref("n.dailyMinuteCap")}) is true`.as(
          "dailyCapReached",
        ),
        sql<boolean>`${sql.ref("l.maxConcurrentCalls")} is not null`.as("countsLiveCalls"),
        "a.routingVersion",
        // The plain case's routing that no running total can change (routing-cache.ts): kept per instance.
        sql<boolean>`(${sql.ref("a.status")} = 'ACTIVE' and ${sql.ref("a.routingTokenHash")} = ${tokenHash} and ${sql.ref("n.id")} is not null and ${sql.ref("tc.accountId")} is null and ${sql.ref("l.hardCap")} is not true and ${sql.ref("l.maxConcurrentCalls")} is null and ${sql.ref("n.dailyMinuteCap")} is null) is true`.as(
          "cacheable",
        ),
      ])
      // The routing token is found by its hash: the current one, or the one before a rotation for 24 hours.
      .where((eb) =>
        eb.or([
          eb("a.routingTokenHash", "=", tokenHash),
          eb.and([eb("a.previousRoutingTokenHash", "=", tokenHash), eb("a.previousRoutingTokenExpiresAt", ">", now())]),
        ]),
      )
  );
}
const lookupBySid = precompiled((tokenHash: string, to: string, key: string, month: string, day: string) =>
  lookupQuery(kysely(), "sid", tokenHash, to, key, month, day),
);
const lookupById = precompiled((tokenHash: string, to: string, key: string, month: string, day: string) =>
  lookupQuery(kysely(), "id", tokenHash, to, key, month, day),
);

/** The columns a new inbound call's voice request sets, in the order lookupAndInsert and insertRouted select them. */
const NEW_INBOUND_COLUMNS = [
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

/**
 * A new inbound call's voice request: the lookup, and in the same statement the call's insert when the
 * lookup's row shows the plain case, one round trip fewer before the answer (issue #24). The plain case
 * is a strict part of what answerInbound would insert uncounted: the account ACTIVE, the number
 * registered and active, no Twilio connection (nothing to verify first: verifyRequest answers false
 * without a token), no call of that SID yet, no cap reached and no maxConcurrentCalls (no admission).
 * Anything else inserts nothing here and takes the usual path after the read; so does a concurrent
 * duplicate (the conflict leaves `insertedId` null, and the usual insert then finds the row).
 */
const lookupAndInsert = precompiled(
  (
    tokenHash: string,
    to: string,
    callSid: string,
    month: string,
    day: string,
    id: string,
    fromNumber: string,
    status: string,
    statusRank: string,
  ) =>
    kysely()
      .with("l", (db) => lookupQuery(db, "sid", tokenHash, to, callSid, month, day))
      .with("ins", (db) =>
        db
          .insertInto("Call")
          .columns(NEW_INBOUND_COLUMNS)
          .expression((eb) =>
            eb
              .selectFrom("l")
              .select([
                sql<string>`${id}::text`.as("id"),
                sql<string>`${callSid}::text`.as("callSid"),
                "l.id as accountId",
                "l.numberId as phoneNumberId",
                sql.lit("inbound").as("direction"),
                sql<string>`${fromNumber}::text`.as("fromNumber"),
                sql<string>`${to}::text`.as("toNumber"),
                sql<string>`${status}::text`.as("status"),
                sql<number>`${statusRank}::int`.as("statusRank"),
                "l.numberStartUrl as onCallStartUrl",
                "l.numberEndUrl as onCallEndUrl",
                "l.numberErrorUrl as onErrorUrl",
                "l.numberAnswerPolicy as answerPolicy",
              ])
              .where("l.status", "=", "ACTIVE")
              .where("l.numberId", "is not", null)
              .where("l.connectionAccountSid", "is", null)
              .where("l.call", "is", null)
              .where("l.spendCapReached", "=", false)
              .where("l.dailyCapReached", "=", false)
              .where("l.countsLiveCalls", "=", false),
          )
          .onConflict((oc) => oc.column("callSid").doNothing())
          .returning("id"),
      )
      .selectFrom("l")
      .selectAll("l")
      .select((eb) => eb.selectFrom("ins").select("ins.id").as("insertedId")),
);

/**
 * A new inbound call inserted on this instance's cached routing (routing-cache.ts), if the account's
 * routingVersion still matches: one primary-key read and the insert, where lookupAndInsert joins seven
 * tables. Nothing is inserted when the routing changed since, or when the SID is already a call (Twilio
 * retrying): the caller then takes the full lookup, which decides both as before.
 */
const insertRouted = precompiled(
  (
    accountId: string,
    version: string,
    id: string,
    callSid: string,
    numberId: string,
    fromNumber: string,
    to: string,
    status: string,
    statusRank: string,
    onCallStartUrl: string,
    onCallEndUrl: string,
    onErrorUrl: string,
    answerPolicy: string,
  ) =>
    kysely()
      .insertInto("Call")
      .columns(NEW_INBOUND_COLUMNS)
      .expression((eb) =>
        eb
          .selectFrom("Account as a")
          .select([
            sql<string>`${id}::text`.as("id"),
            sql<string>`${callSid}::text`.as("callSid"),
            "a.id as accountId",
            sql<string>`${numberId}::text`.as("phoneNumberId"),
            sql.lit("inbound").as("direction"),
            sql<string>`${fromNumber}::text`.as("fromNumber"),
            sql<string>`${to}::text`.as("toNumber"),
            sql<string>`${status}::text`.as("status"),
            sql<number>`${statusRank}::int`.as("statusRank"),
            sql<string>`${onCallStartUrl}::text`.as("onCallStartUrl"),
            sql<string>`${onCallEndUrl}::text`.as("onCallEndUrl"),
            sql<string | null>`${onErrorUrl}::text`.as("onErrorUrl"),
            sql<unknown>`${answerPolicy}::jsonb`.as("answerPolicy"),
          ])
          .where("a.id", "=", accountId)
          .where("a.routingVersion", "=", version),
      )
      .onConflict((oc) => oc.column("callSid").doNothing())
      .returning("id"),
);

const NO_GUARD: EngineGuard = Object.freeze({ spendCapReached: false, dailyCapReached: false, countsLiveCalls: false });

/** A new inbound call on the cached routing, or null when the full lookup must decide it (see insertRouted). */
async function insertOnCachedRouting(
  tokenHash: string,
  to: string,
  callSid: string,
  id: string,
  insert: InboundInsert,
): Promise<EngineLookup | null> {
  const cached = cachedRouting(tokenHash, to);
  if (!cached) {
    metrics().engineRouting.inc({ source: "read" });
    return null;
  }
  const { account, number } = cached;
  const [row] = await executeCompiled(
    insertRouted(
      account.id,
      cached.version,
      id,
      callSid,
      number.id,
      insert.fromNumber,
      to,
      insert.status,
      String(insert.statusRank),
      number.onCallStartUrl,
      number.onCallEndUrl,
      number.onErrorUrl as string,
      (number.answerPolicy === null || number.answerPolicy === undefined
        ? null
        : JSON.stringify(number.answerPolicy)) as string,
    ),
  );
  if (!row) {
    metrics().engineRouting.inc({ source: "stale" });
    return null;
  }
  metrics().engineRouting.inc({ source: "cached" });
  return {
    account,
    number,
    call: null,
    connection: null,
    guard: NO_GUARD,
    inserted: plainInboundCall(row.id, account.id, number, callSid, to, insert),
  };
}

/**
 * The account behind an engine URL, the number called (active only) and the call, in one read. With
 * `insert` (a voice request of a call with no id of ours), the same statement inserts the new call in
 * the plain case (lookupAndInsert), answered as `inserted`.
 */
export async function lookupEngineRequest(opts: {
  routingToken: string;
  to: string;
  callSid: string;
  callId: string | null;
  /** When the request arrived: the month and the UTC day whose totals the guardrails read. */
  at: Date;
  insert?: InboundInsert;
}): Promise<EngineLookup | null> {
  const tokenHash = hashRoutingToken(opts.routingToken);
  const month = usagePeriod(opts.at);
  const day = opts.at.toISOString().slice(0, 10);
  const { insert } = opts;
  // Made here, not by routekit_id() (db/database-id.ts); unused unless the plain case inserts.
  const id = insert && !opts.callId ? newDatabaseId() : null;
  if (insert && id) {
    const routed = await insertOnCachedRouting(tokenHash, opts.to, opts.callSid, id, insert);
    if (routed) return routed;
  }
  const query =
    insert && id
      ? lookupAndInsert(
          tokenHash,
          opts.to,
          opts.callSid,
          month,
          day,
          id,
          insert.fromNumber,
          insert.status,
          String(insert.statusRank),
        )
      : opts.callId
        ? lookupById(tokenHash, opts.to, opts.callId, month, day)
        : lookupBySid(tokenHash, opts.to, opts.callSid, month, day);
  const [row] = (await executeCompiled(query)) as (LookupRow & { insertedId?: string | null })[];
  if (!row) {
    if (insert) forgetRouting(tokenHash, opts.to);
    return null;
  }
  const {
    numberId,
    numberStartUrl,
    numberEndUrl,
    numberErrorUrl,
    numberAnswerPolicy,
    connectionAccountSid,
    connectionAuthTokenEnc,
  } = row;
  const number =
    numberId && numberStartUrl && numberEndUrl
      ? {
          id: numberId,
          onCallStartUrl: numberStartUrl,
          onCallEndUrl: numberEndUrl,
          onErrorUrl: numberErrorUrl,
          answerPolicy: numberAnswerPolicy,
        }
      : null;
  const account: EngineAccount = {
    id: row.id,
    status: row.status,
    stripeCustomerId: row.stripeCustomerId,
    currentPeriodStart: row.currentPeriodStart,
    currentPeriodEnd: row.currentPeriodEnd,
    webhookSecretEnc: row.webhookSecretEnc,
    previousWebhookSecretEnc: row.previousWebhookSecretEnc,
    previousWebhookSecretExpiresAt: row.previousWebhookSecretExpiresAt,
  };
  const connection =
    connectionAccountSid && connectionAuthTokenEnc
      ? { accountSid: connectionAccountSid, authTokenEnc: connectionAuthTokenEnc }
      : null;
  if (insert) {
    // Shared by every later call on this routing, so frozen: no request may change another's.
    if (number && account.status === "ACTIVE")
      rememberRouting(tokenHash, opts.to, {
        account: Object.freeze(account),
        number: Object.freeze(number),
        version: row.routingVersion,
        plain: row.cacheable === true,
        connection: connection && Object.freeze(connection),
      });
    else forgetRouting(tokenHash, opts.to);
  }
  return {
    account,
    number,
    call: row.call,
    connection,
    guard: {
      spendCapReached: row.spendCapReached === true,
      dailyCapReached: row.dailyCapReached === true,
      countsLiveCalls: row.countsLiveCalls === true,
    },
    inserted:
      row.insertedId && insert && number
        ? plainInboundCall(row.insertedId, row.id, number, opts.callSid, opts.to, insert)
        : null,
  };
}
type LookupRow = ReturnType<typeof lookupBySid> extends CompiledQuery<infer R> ? R : never;

/** The call the plain case's insert made (lookupAndInsert or insertRouted): the number's URLs and policy, the voice request's rest. */
export function plainInboundCall(
  id: string,
  accountId: string,
  number: EngineNumber,
  callSid: string,
  to: string,
  insert: InboundInsert,
): EngineCall {
  return newCallRow(id, {
    callSid,
    accountId,
    phoneNumberId: number.id,
    fromNumber: insert.fromNumber,
    toNumber: to,
    statusRank: insert.statusRank,
    onCallStartUrl: number.onCallStartUrl,
    onCallEndUrl: number.onCallEndUrl,
    onErrorUrl: number.onErrorUrl,
    answerPolicy: number.answerPolicy ?? null,
  });
}

/** A new inbound call as its insert made it: what was sent, so nothing is read back (15 columns decoded per call otherwise). */
function newCallRow(
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

type NewInboundCall = Omit<
  EngineCall,
  "id" | "metadata" | "answeredBy" | "providerAccountSid" | "providerAuthTokenEnc" | "direction" | "answerPolicy"
> & {
  status: string;
  /** The number's answer policy as it is now, kept with the call (docs/decisions.md §12). */
  answerPolicy?: unknown;
  reconciled?: boolean;
  /**
   * False when the lookup found no maxConcurrentCalls: the call is inserted alone, with no admission (see
   * insertUncounted). Unset, the insert admits it against the count if the account has a cap.
   */
  counted?: boolean;
  /** A simulated call (docs/decisions.md §21): marked `test`, inserted alone like an uncounted one, never admitted. */
  test?: boolean;
  /**
   * When its voice request came, for a call answered while the database was down and inserted once it is
   * back (answer-during-outage.ts): dated then, so the lifetime that bounds an unverified duration
   * (closeCall's clamp) starts where the call did. Inserted alone, like an uncounted one.
   */
  at?: Date;
};

/**
 * Records an inbound call once per SID. Twilio retries a voice request it got no
 * answer to, so a second insert of the same SID yields the call already there.
 */
export async function insertInboundCall(call: NewInboundCall): Promise<EngineCall | null> {
  return (await insertInboundCallOnce(call)).call;
}

const inboundValues = (
  id: string,
  callSid: string,
  accountId: string,
  phoneNumberId: string | null,
  fromNumber: string,
  toNumber: string,
  status: string,
  statusRank: number,
  onCallStartUrl: string,
  onCallEndUrl: string,
  onErrorUrl: string | null,
  answerPolicy: string | null,
  reconciled: boolean,
) => ({
  id,
  callSid,
  accountId,
  phoneNumberId,
  direction: "inbound",
  fromNumber,
  toNumber,
  status,
  statusRank,
  onCallStartUrl,
  onCallEndUrl,
  onErrorUrl,
  answerPolicy,
  reconciledAt: reconciled ? now() : null,
});
type InboundArgs = Parameters<typeof inboundValues> extends [...infer A, boolean] ? A : never;
/** The account of an insert's arguments (id, callSid, accountId, …), named once rather than by position at each use. */
const accountIdOf = (args: InboundArgs): string => args[2];

/**
 * A live call: inserted, and in the same statement admitted (docs/decisions.md §17). Only a row this
 * statement made is counted: the account's live count goes up by one unless it is at
 * maxConcurrentCalls (a conditional increment, so concurrent calls, on any number of instances, can
 * never all pass a check they read before one another's increment), and the admitted call takes a
 * LiveCallSlot, which the transaction that closes it gives back. Not admitted, the call is in the table
 * and holds nothing: the caller rejects it.
 */
const insertLive = precompiled((...args: InboundArgs) =>
  kysely()
    .with("ins", (db) =>
      db
        .insertInto("Call")
        .values(inboundValues(...args, false))
        .onConflict((oc) => oc.column("callSid").doNothing())
        // Only the id: the rest of a new row is what was just sent, so it is not read back (15 columns decoded per call otherwise).
        .returning("id"),
    )
    // Only an account with maxConcurrentCalls counts its live calls: the count is one row per account,
    // and every call writing it made each account's calls commit one after another (side by side: 0.72× of
    // the reference's voice requests became 0.41×). Without a cap nothing is written here.
    .with("capped", (db) =>
      db
        .selectFrom("AccountLimit")
        .select("accountId")
        .where("accountId", "=", accountIdOf(args))
        .where("maxConcurrentCalls", "is not", null),
    )
    .with("admit", (db) =>
      db
        .updateTable("AccountLimit")
        .set((eb) => ({ liveCalls: eb("AccountLimit.liveCalls", "+", 1) }))
        .where("AccountLimit.accountId", "=", accountIdOf(args))
        .where("AccountLimit.maxConcurrentCalls", "is not", null)
        .where((eb) =>
          eb.and([
            eb("AccountLimit.liveCalls", "<", eb.ref("AccountLimit.maxConcurrentCalls")),
            eb.exists(eb.selectFrom("ins").select("ins.id")),
          ]),
        )
        .returning("AccountLimit.accountId"),
    )
    .with("slot", (db) =>
      db
        .insertInto("LiveCallSlot")
        .columns(["callId", "accountId"])
        .expression((eb) =>
          eb
            .selectFrom("ins")
            .innerJoin("admit", (j) => j.onTrue())
            .select(["ins.id", "admit.accountId"]),
        )
        .returning("callId"),
    )
    .selectFrom("ins")
    .select((eb) => [
      "ins.id",
      eb
        .or([
          eb.not(eb.exists(eb.selectFrom("capped").select("capped.accountId"))),
          eb.exists(eb.selectFrom("slot").select("slot.callId")),
        ])
        .as("admitted"),
    ]),
);

/** The call's insert alone, with no admission: `admitted` is what the caller already knows it to be. */
const insertAlone = (reconciled: boolean) =>
  precompiled((...args: InboundArgs) =>
    kysely()
      .insertInto("Call")
      .values(inboundValues(...args, reconciled))
      .onConflict((oc) => oc.column("callSid").doNothing())
      .returning((eb) => ["id", eb.lit(!reconciled).as("admitted")]),
  );

/**
 * A live call of an account without maxConcurrentCalls, as the lookup just read: admitted, without the
 * admission CTEs that would find nothing to do (side by side: 0.56-0.58x of the reference with them).
 * A cap set between the lookup and this insert misses this call, as one set in the same instant does.
 */
const insertUncounted = insertAlone(false);
/** A call read from Twilio's record (reconciliation): closed at once, it never counts as live. */
const insertReconciled = insertAlone(true);
/** A simulated call (docs/decisions.md §21): marked `test`, and never counted as live nor admitted against a limit. */
const insertSimulated = precompiled((...args: InboundArgs) =>
  kysely()
    .insertInto("Call")
    .values({ ...inboundValues(...args, false), test: true })
    .onConflict((oc) => oc.column("callSid").doNothing())
    .returning((eb) => ["id", eb.lit(true).as("admitted")]),
);

/** A call answered during an outage, dated when its voice request came (NewInboundCall.at); rare, so not precompiled. */
const insertDatedAt =
  (at: Date) =>
  (...args: InboundArgs) =>
    kysely()
      .insertInto("Call")
      .values({ ...inboundValues(...args, false), createdAt: at, lastRequestAt: at })
      .onConflict((oc) => oc.column("callSid").doNothing())
      .returning((eb) => ["id", eb.lit(true).as("admitted")])
      .compile();

/**
 * The same, saying whether this insert made the row (`inserted`) or found it there, and whether the
 * made row was admitted as live (`admitted`; always false for a reconciled call, or one found there).
 */
export async function insertInboundCallOnce(
  call: NewInboundCall,
): Promise<{ call: EngineCall | null; inserted: boolean; admitted: boolean }> {
  const at = call.at;
  const insert = at
    ? insertDatedAt(at)
    : call.test
      ? insertSimulated
      : call.reconciled
        ? insertReconciled
        : call.counted === false
          ? insertUncounted
          : insertLive;
  const query = insert(
    // Made here, not by routekit_id() (db/database-id.ts): about 9 µs of the database's CPU less per call.
    newDatabaseId(),
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
    // As text: both drivers read it as jsonb.
    call.answerPolicy === null || call.answerPolicy === undefined ? null : JSON.stringify(call.answerPolicy),
  );
  const [inserted] = await executeCompiled(query);
  if (inserted) {
    const {
      callSid,
      accountId,
      phoneNumberId,
      fromNumber,
      toNumber,
      statusRank,
      onCallStartUrl,
      onCallEndUrl,
      onErrorUrl,
    } = call;
    const made = newCallRow(inserted.id, {
      callSid,
      accountId,
      phoneNumberId,
      fromNumber,
      toNumber,
      statusRank,
      onCallStartUrl,
      onCallEndUrl,
      onErrorUrl,
      answerPolicy: call.answerPolicy ?? null,
    });
    return { call: made, inserted: true, admitted: inserted.admitted === true };
  }
  const existing = await kysely()
    .selectFrom("Call")
    .select(CALL_COLUMNS)
    .where("callSid", "=", call.callSid)
    .executeTakeFirst();
  return {
    call: existing && existing.accountId === call.accountId ? existing : null,
    inserted: false,
    admitted: false,
  };
}

/**
 * A call the insert made but did not admit (the account at maxConcurrentCalls): closed at once as
 * rejected, before Twilio is answered, so no later status of it can reopen or bill it. It never took a
 * slot, so its close gives none back. Its voice request goes on its timeline as a rejected call's does.
 */
export async function rejectUnadmittedCall(
  db: Kysely<DB>,
  opts: {
    callId: string;
    at: Date;
    requestStatus: string;
    endReason: string;
    error: { code: string; message: string };
    twiml: string;
  },
): Promise<boolean> {
  const closed = await db
    .with("timeline", (q) =>
      q
        .insertInto("CallRequest")
        .values({ callId: opts.callId, at: opts.at, kind: "voice", callStatus: opts.requestStatus }),
    )
    .updateTable("Call")
    .set({
      status: "rejected",
      statusRank: TERMINAL_RANK,
      endedAt: opts.at,
      answer: "reject",
      errorCode: opts.error.code,
      errorMessage: opts.error.message,
      endReason: opts.endReason,
      twiml: opts.twiml,
      lastRequestAt: now(),
      updatedAt: now(),
    })
    .where("id", "=", opts.callId)
    .where("statusRank", "<", TERMINAL_RANK)
    .returning("id")
    .executeTakeFirst();
  return closed !== undefined;
}

/**
 * Gives back the call's live slot, if it holds one, in the transaction that moved it to a terminal
 * status (docs/decisions.md §17): the slot's delete happens once, so the count goes down once, whoever
 * closed the call (its final status, reconciliation, the no-final-status close).
 */
export async function freeLiveSlot(trx: Kysely<DB>, callId: string): Promise<boolean> {
  const result = await trx
    .with("freed", (q) => q.deleteFrom("LiveCallSlot").where("callId", "=", callId).returning("accountId"))
    .updateTable("AccountLimit")
    .set((eb) => ({ liveCalls: eb("AccountLimit.liveCalls", "-", 1) }))
    .from("freed")
    .whereRef("AccountLimit.accountId", "=", "freed.accountId")
    .returning("AccountLimit.liveCalls")
    .executeTakeFirst();
  return result !== undefined;
}

/** An outbound call's SID, learnt from Twilio's first callback if it beats `calls.create` returning. */
export async function bindCallSid(callId: string, callSid: string): Promise<void> {
  await kysely()
    .updateTable("Call")
    .set({ callSid, lastRequestAt: now(), updatedAt: now() })
    .where("id", "=", callId)
    .where("callSid", "like", "pending:%")
    .execute();
}

/** A request on the call's timeline: Twilio's status callback, or reconciliation reading Twilio's call record. */
export type TimelineRequest = {
  /** `closed`: Routekit closed the call because its final status never came (docs/decisions.md §14). */
  kind: "status" | "reconciliation" | "closed";
  sequenceNumber: number | null;
  /** The CallStatus as Twilio sent it, where it differs from the status stored (`answered`). */
  sentStatus?: string;
};

// Each status request goes on the call's timeline (CallRequest) in the statement it runs anyway;
// a data-modifying CTE always runs, so duplicates and late statuses are on the timeline too.
function withTimeline(
  db: Kysely<DB>,
  callId: string,
  at: Date | ReturnType<typeof now>,
  request: TimelineRequest | null,
  status: string,
): QueryCreator<DB> {
  if (!request) return db;
  return db.with("timeline", (q) =>
    q.insertInto("CallRequest").values({
      callId,
      at,
      kind: request.kind,
      callStatus: request.sentStatus ?? status,
      sequenceNumber: request.sequenceNumber,
    }),
  ) as unknown as QueryCreator<DB>;
}

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
  /**
   * call.ringing / call.answered (docs/decisions.md §15): recorded in this same statement, for the account's
   * subscribed endpoints only and only on the first status callback that reports it (`reportedAs`: Twilio's
   * spellings) while the call has not ended; zero rows (and no further statement) when none subscribes.
   * Answers the ids of the deliveries written, scheduled in the same transaction.
   */
  progressEvent?: { accountId: string; event: EventEnvelope; reportedAs: readonly string[] };
}): Promise<string[]> {
  const { rank } = opts;
  const statement = (db: Kysely<DB>) => withTimeline(db, opts.callId, now(), opts.request, opts.status);
  const update = (q: QueryCreator<DB>) =>
    q
      .updateTable("Call")
      .set((eb) => {
        const forward = eb("statusRank", "<", rank);
        return {
          status: eb.case().when(forward).then(opts.status).else(eb.ref("status")).end(),
          statusRank: eb.fn<number>("greatest", [eb.ref("statusRank"), eb.val(rank)]),
          answeredBy: eb.case().when(forward).then(opts.answeredBy).else(eb.ref("answeredBy")).end(),
          answeredAt: opts.answered
            ? eb.case().when(forward).then(now()).else(eb.ref("answeredAt")).end()
            : eb.ref("answeredAt"),
          lastRequestAt: now(),
          updatedAt: now(),
        };
      })
      .where("id", "=", opts.callId)
      .where("statusRank", "<", TERMINAL_RANK);
  if (!opts.progressEvent) {
    await update(statement(kysely())).execute();
    return [];
  }
  const { accountId, event, reportedAs } = opts.progressEvent;
  // The deliveries and their first attempts' jobs commit together: written by this statement and
  // scheduled after its commit, a crash in between left deliveries that no job would ever send.
  const ids = await sqlTransaction(async (trx) => {
    const rows = await statement(trx)
      .with("to_endpoints", (q) =>
        endpointDeliveries(q, {
          accountId,
          event,
          payload: JSON.stringify(event),
          callSid: typeof event.data.callSid === "string" ? event.data.callSid : null,
          when: firstReport(opts.callId, reportedAs),
        }),
      )
      .with("moved", (q) => update(q).returning("id"))
      .selectFrom("to_endpoints")
      .select(["id", "url"])
      .execute();
    await scheduleDeliveriesIn(trx, accountId, rows);
    return rows.map((r) => r.id);
  });
  if (ids.length) wakeDeliveryWorker();
  return ids;
}

/**
 * The statement's snapshot is the call before this request: a progress event is news when the call has not
 * ended and no earlier status callback reported the same status. Not "moved forward": an outbound call's
 * answer request makes it in-progress before (or after) Twilio's `answered` status callback, in either order.
 */
function firstReport(callId: string, reportedAs: readonly string[]) {
  return sql<SqlBool>`exists (select 1 from "Call" where "id" = ${callId} and "statusRank" < ${TERMINAL_RANK})
    and not exists (select 1 from "CallRequest" where "callId" = ${callId} and "kind" = 'status'
      and "callStatus" = any(${[...reportedAs]}::text[]))`;
}

/**
 * Closes a call once: false when it was already closed (a duplicate, a late
 * callback, or reconciliation and a callback racing). The provider token goes with it.
 */
/** docs/decisions.md §20: an unverifiable final status bills at most the call's lifetime so far plus this. */
export const UNVERIFIED_DURATION_SLACK_SECONDS = 60;

/**
 * Closes the call unless it already is; answers the seconds stored (and to
 * bill), or null when it was closed before. With `clampToLifetime` (a final
 * status nothing could verify) `durationSeconds` is capped at the time from
 * the call's first request to `endedAt` (when the status was received, even
 * if it is applied later from the journal) plus the slack; what was
 * reported beyond that is kept in `reportedDurationSeconds` for the timeline.
 */
export async function closeCall(
  db: Kysely<DB>,
  opts: {
    callId: string;
    status: string;
    rank: number;
    endedAt: Date;
    durationSeconds: number;
    answeredBy: string | null;
    reconciled: boolean;
    /** Null when the caller logs it itself, only if the call was closed. */
    request: TimelineRequest | null;
    clampToLifetime?: boolean;
    /** docs/decisions.md §14, with Twilio's carrier codes when its callback carried them. */
    endReason: string;
    sipResponseCode?: number | null;
    twilioErrorCode?: number | null;
  },
): Promise<{ durationSeconds: number; endReason: string } | null> {
  const failed = opts.status === "failed";
  // A call ended by a live command (hung up through the API, or transferred) says so, whatever
  // Twilio's final status: the command marked it (services/calls/control), its close reads the mark.
  const controlled = opts.status === "completed" || opts.status === "canceled";
  const reported = sql<number>`${opts.durationSeconds}::int`;
  const lifetime = sql<number>`(greatest(0, ceil(extract(epoch from (${opts.endedAt}::timestamptz - "createdAt")))) + ${UNVERIFIED_DURATION_SLACK_SECONDS})::int`;
  const clamp = opts.clampToLifetime === true && opts.durationSeconds > 0;
  const result = await withTimeline(db, opts.callId, opts.endedAt, opts.request, opts.status)
    .updateTable("Call")
    .set((eb) => ({
      status: opts.status,
      statusRank: opts.rank,
      endedAt: opts.endedAt,
      durationSeconds: clamp ? sql<number>`least(${reported}, ${lifetime})` : opts.durationSeconds,
      reportedDurationSeconds: clamp
        ? sql<number | null>`case when ${reported} > ${lifetime} then ${reported} end`
        : null,
      answeredBy: opts.answeredBy,
      endReason: controlled ? eb.fn.coalesce("controlEnd", eb.val(opts.endReason)) : opts.endReason,
      sipResponseCode: opts.sipResponseCode ?? null,
      twilioErrorCode: opts.twilioErrorCode ?? null,
      providerAuthTokenEnc: null,
      lastRequestAt: now(),
      reconciledAt: opts.reconciled ? now() : eb.ref("reconciledAt"),
      updatedAt: now(),
      // A failed call says why, unless it already does (SET sees the row as it was).
      errorCode: failed ? eb.fn.coalesce("errorCode", eb.val("CALL_FAILED")) : eb.ref("errorCode"),
      errorMessage: failed
        ? eb
            .case()
            .when("errorCode", "is", null)
            .then("Twilio reported the call as failed.")
            .else(eb.ref("errorMessage"))
            .end()
        : eb.ref("errorMessage"),
    }))
    .where("id", "=", opts.callId)
    .where("statusRank", "<", opts.rank)
    .returning(["durationSeconds", "endReason"])
    .executeTakeFirst();
  return result === undefined
    ? null
    : { durationSeconds: result.durationSeconds ?? 0, endReason: result.endReason ?? opts.endReason };
}

// ---- Reconciliation's reads (docs/decisions.md §10): off the hot path, on the same shapes the close path takes.

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

export type StaleCall = { call: EngineCall; connection: EngineConnection };

/**
 * Calls of connected accounts still open with no request from Twilio since
 * `before`, oldest silence first (the index on statusRank, lastRequestAt).
 */
export async function staleOpenCalls(before: Date, limit: number): Promise<StaleCall[]> {
  const rows = await kysely()
    .selectFrom("Call as c")
    .innerJoin("TwilioConnection as tc", "tc.accountId", "c.accountId")
    .select([...prefixedCallColumns, "tc.accountSid", "tc.authTokenEnc"])
    .where("c.statusRank", "<", TERMINAL_RANK)
    .where("c.lastRequestAt", "<", before)
    .where("c.callSid", "not like", "pending:%")
    // A simulated call (docs/decisions.md §21) never reached Twilio: there is nothing there to read.
    .where("c.test", "=", false)
    .orderBy("c.lastRequestAt")
    .limit(limit)
    .execute();
  // Read from Call itself, every row has a call.
  return rows.flatMap((r) => {
    const call = callFromRow(r as unknown as PrefixedRow);
    return call ? [{ call, connection: { accountSid: r.accountSid, authTokenEnc: r.authTokenEnc } }] : [];
  });
}

/** Twilio knows nothing final about the call yet: ask again after another quiet spell, and let the others have their turn. */
export async function postponeReconciliation(callId: string, at: Date): Promise<void> {
  await kysely()
    .updateTable("Call")
    .set({ lastRequestAt: at })
    .where("id", "=", callId)
    .where("statusRank", "<", TERMINAL_RANK)
    .execute();
}

export type ReconcileTarget = EngineConnection & {
  accountId: string;
  connectedAt: Date;
  reconciledThrough: Date | null;
  numbers: (EngineNumber & { phoneNumber: string; createdAt: Date })[];
};

/** Every Twilio connection with the verified numbers its call list is read for. */
export async function reconcileTargets(): Promise<ReconcileTarget[]> {
  const rows = await kysely()
    .selectFrom("TwilioConnection as tc")
    .innerJoin("PhoneNumber as n", (j) =>
      j.onRef("n.accountId", "=", "tc.accountId").on("n.verified", "=", true).on("n.isActive", "=", true),
    )
    .select([
      "tc.accountId",
      "tc.accountSid",
      "tc.authTokenEnc",
      "tc.connectedAt",
      "tc.reconciledThrough",
      "n.id",
      "n.phoneNumber",
      "n.onCallStartUrl",
      "n.onCallEndUrl",
      "n.onErrorUrl",
      "n.createdAt",
    ])
    .orderBy("tc.accountId")
    .execute();
  const targets = new Map<string, ReconcileTarget>();
  for (const r of rows) {
    let t = targets.get(r.accountId);
    if (!t) {
      t = {
        accountId: r.accountId,
        accountSid: r.accountSid,
        authTokenEnc: r.authTokenEnc,
        connectedAt: r.connectedAt,
        reconciledThrough: r.reconciledThrough,
        numbers: [],
      };
      targets.set(r.accountId, t);
    }
    t.numbers.push({
      id: r.id,
      phoneNumber: r.phoneNumber,
      onCallStartUrl: r.onCallStartUrl,
      onCallEndUrl: r.onCallEndUrl,
      onErrorUrl: r.onErrorUrl,
      createdAt: r.createdAt,
    });
  }
  return [...targets.values()];
}

/** Moves the connection's watermark forward only: two runs at once never move it back. */
export async function advanceReconciledThrough(accountId: string, through: Date): Promise<void> {
  await kysely()
    .updateTable("TwilioConnection")
    .set((eb) => ({
      reconciledThrough: eb.fn<Date>("greatest", [
        eb.fn.coalesce("reconciledThrough", eb.val(through)),
        eb.val(through),
      ]),
    }))
    .where("accountId", "=", accountId)
    .execute();
}
