/**
 * The engine's lookup (docs/decisions.md §7): the account behind an engine URL, the number called and the
 * call, in one read, and in the plain case the new call's insert in the same statement or on this
 * instance's cached routing (routing-cache.ts, ADR 0006). Precompiled on the pool (ADR 0002).
 */
import { sql, type CompiledQuery, type QueryCreator } from "kysely";
import { newDatabaseId } from "../../db/database-id";
import { executeCompiled, kysely, now, precompiled, precompiledNamed, type DB } from "../../db/kysely";
import { hashRoutingToken } from "../../services/accounts/engine-voice-url";
import { usagePeriod, utcDay } from "../../services/usage/usage-periods";
import {
  concurrencyCapSet,
  dailyCapReached,
  dayTotalJoin,
  monthTotalJoin,
  noGuardrailSet,
  spendCapReached,
} from "../../services/limits/guardrails";
import { metrics } from "../../metrics/metrics";
import { cachedRouting, forgetRouting, rememberRouting } from "../routing-cache";
import {
  ACCOUNT_COLUMNS,
  NEW_INBOUND_COLUMNS,
  newInboundSelection,
  callAsJson,
  newCallRow,
  type EngineAccount,
  type EngineCall,
  type EngineConnection,
  type EngineNumber,
} from "../../services/calls/call-row";

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
      .leftJoin("UsageTotal as um", (j) => j.on(monthTotalJoin("l", "um", "a.id", month)))
      .leftJoin("UsageTotal as ud", (j) => j.on(dayTotalJoin("n", "ud", "a.id", day)))
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
        "n.listen as numberListen",
        "n.shadow as numberShadow",
        "tc.accountSid as connectionAccountSid",
        "tc.authTokenEnc as connectionAuthTokenEnc",
        callAsJson.as("call"),
        spendCapReached("l", "um").as("spendCapReached"),
        dailyCapReached("n", "ud").as("dailyCapReached"),
        sql<boolean>`${concurrencyCapSet("l")}`.as("countsLiveCalls"),
        "a.routingVersion",
        // The plain case's routing that no running total can change (routing-cache.ts): kept per instance.
        sql<boolean>`(${sql.ref("a.status")} = 'ACTIVE' and ${sql.ref("a.routingTokenHash")} = ${tokenHash} and ${sql.ref("n.id")} is not null and ${sql.ref("tc.accountId")} is null and ${noGuardrailSet("l", "n")}) is true`.as(
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

/**
 * A new inbound call's voice request: the lookup, and in the same statement the call's insert when the
 * lookup's row shows the plain case, one round trip fewer before the answer (issue #24). The plain case
 * is a strict part of what answerInbound would insert uncounted: the account ACTIVE, the number
 * registered and active, no Twilio connection (nothing to verify first: verifyRequest answers false
 * without a token), no call of that SID yet, no cap reached and no maxConcurrentCalls (no admission).
 * Anything else inserts nothing here and takes the usual path after the read; so does a concurrent
 * duplicate (the conflict leaves `insertedId` null, and the usual insert then finds the row).
 */
type LookupAndInsert = {
  tokenHash: string;
  to: string;
  callSid: string;
  month: string;
  day: string;
  id: string;
  fromNumber: string;
  status: string;
  statusRank: string;
};
const lookupAndInsert = precompiledNamed<LookupAndInsert, LookupRow & { insertedId: string | null }>(
  {
    tokenHash: true,
    to: true,
    callSid: true,
    month: true,
    day: true,
    id: true,
    fromNumber: true,
    status: true,
    statusRank: true,
  },
  (p) =>
    kysely()
      .with("l", (db) => lookupQuery(db, "sid", p.tokenHash, p.to, p.callSid, p.month, p.day))
      .with("ins", (db) =>
        db
          .insertInto("Call")
          .columns(NEW_INBOUND_COLUMNS)
          .expression((eb) =>
            eb
              .selectFrom("l")
              .select(
                newInboundSelection({
                  id: sql<string>`${p.id}::text`,
                  callSid: sql<string>`${p.callSid}::text`,
                  accountId: sql.ref("l.id"),
                  phoneNumberId: sql.ref("l.numberId"),
                  direction: sql.lit("inbound"),
                  fromNumber: sql<string>`${p.fromNumber}::text`,
                  toNumber: sql<string>`${p.to}::text`,
                  status: sql<string>`${p.status}::text`,
                  statusRank: sql<number>`${p.statusRank}::int`,
                  onCallStartUrl: sql.ref("l.numberStartUrl"),
                  onCallEndUrl: sql.ref("l.numberEndUrl"),
                  onErrorUrl: sql.ref("l.numberErrorUrl"),
                  answerPolicy: sql.ref("l.numberAnswerPolicy"),
                }),
              )
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
type InsertRouted = {
  accountId: string;
  version: string;
  id: string;
  callSid: string;
  numberId: string;
  fromNumber: string;
  to: string;
  status: string;
  statusRank: string;
  onCallStartUrl: string;
  onCallEndUrl: string;
  onErrorUrl: string | null;
  /** jsonb as text, or null. */
  answerPolicy: string | null;
};
const insertRouted = precompiledNamed<InsertRouted, { id: string }>(
  {
    accountId: true,
    version: true,
    id: true,
    callSid: true,
    numberId: true,
    fromNumber: true,
    to: true,
    status: true,
    statusRank: true,
    onCallStartUrl: true,
    onCallEndUrl: true,
    onErrorUrl: true,
    answerPolicy: true,
  },
  (p) =>
    kysely()
      .insertInto("Call")
      .columns(NEW_INBOUND_COLUMNS)
      .expression((eb) =>
        eb
          .selectFrom("Account as a")
          .select(
            newInboundSelection({
              id: sql<string>`${p.id}::text`,
              callSid: sql<string>`${p.callSid}::text`,
              accountId: sql.ref("a.id"),
              phoneNumberId: sql<string>`${p.numberId}::text`,
              direction: sql.lit("inbound"),
              fromNumber: sql<string>`${p.fromNumber}::text`,
              toNumber: sql<string>`${p.to}::text`,
              status: sql<string>`${p.status}::text`,
              statusRank: sql<number>`${p.statusRank}::int`,
              onCallStartUrl: sql<string>`${p.onCallStartUrl}::text`,
              onCallEndUrl: sql<string>`${p.onCallEndUrl}::text`,
              onErrorUrl: sql<string | null>`${p.onErrorUrl}::text`,
              answerPolicy: sql<unknown>`${p.answerPolicy}::jsonb`,
            }),
          )
          .where("a.id", "=", p.accountId)
          .where("a.routingVersion", "=", p.version),
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
    insertRouted({
      accountId: account.id,
      version: cached.version,
      id,
      callSid,
      numberId: number.id,
      fromNumber: insert.fromNumber,
      to,
      status: insert.status,
      statusRank: String(insert.statusRank),
      onCallStartUrl: number.onCallStartUrl,
      onCallEndUrl: number.onCallEndUrl,
      onErrorUrl: number.onErrorUrl,
      answerPolicy:
        number.answerPolicy === null || number.answerPolicy === undefined ? null : JSON.stringify(number.answerPolicy),
    }),
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
  const day = utcDay(opts.at);
  const { insert } = opts;
  // Made here, not by routekit_id() (db/database-id.ts); unused unless the plain case inserts.
  const id = insert && !opts.callId ? newDatabaseId() : null;
  if (insert && id) {
    const routed = await insertOnCachedRouting(tokenHash, opts.to, opts.callSid, id, insert);
    if (routed) return routed;
  }
  const query =
    insert && id
      ? lookupAndInsert({
          tokenHash,
          to: opts.to,
          callSid: opts.callSid,
          month,
          day,
          id,
          fromNumber: insert.fromNumber,
          status: insert.status,
          statusRank: String(insert.statusRank),
        })
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
    numberListen,
    numberShadow,
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
          listen: numberListen === true,
          shadow: numberShadow,
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
