/**
 * Inserting a call: once per SID (Twilio retries a voice request it got no answer to), admitted against
 * maxConcurrentCalls in the same statement (docs/decisions.md §17), or inserted alone where nothing is
 * counted (a simulated, reconciled or outage-answered call).
 */
import type { Kysely } from "kysely";
import { newDatabaseId } from "../../db/database-id";
import { executeCompiled, kysely, now, precompiledNamed, type DB } from "../../db/kysely";
import { TERMINAL_RANK } from "./call-status";
import { CALL_COLUMNS, newCallRow, type EngineCall, type NewInboundColumn } from "./call-row";
import { concurrencyCapSet, liveSlotFree } from "../limits/guardrails";

export type NewInboundCall = Omit<
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

/** A new inbound call's values, one per column of NEW_INBOUND_COLUMNS but `direction` (always inbound). */
type InboundRow = Omit<Record<NewInboundColumn, unknown>, "direction"> & {
  id: string;
  callSid: string;
  accountId: string;
  phoneNumberId: string | null;
  fromNumber: string;
  toNumber: string;
  status: string;
  statusRank: number;
  onCallStartUrl: string;
  onCallEndUrl: string;
  onErrorUrl: string | null;
  /** jsonb as text, or null: both drivers read it as jsonb. */
  answerPolicy: string | null;
};
const INBOUND_ROW_KEYS = {
  id: true,
  callSid: true,
  accountId: true,
  phoneNumberId: true,
  fromNumber: true,
  toNumber: true,
  status: true,
  statusRank: true,
  onCallStartUrl: true,
  onCallEndUrl: true,
  onErrorUrl: true,
  answerPolicy: true,
} as const;

const inboundValues = (row: InboundRow, reconciled: boolean) =>
  ({
    ...row,
    direction: "inbound",
    reconciledAt: reconciled ? now() : null,
  }) satisfies Record<NewInboundColumn, unknown> & { reconciledAt: unknown };

/**
 * A live call: inserted, and in the same statement admitted (docs/decisions.md §17). Only a row this
 * statement made is counted: the account's live count goes up by one unless it is at
 * maxConcurrentCalls (a conditional increment, so concurrent calls, on any number of instances, can
 * never all pass a check they read before one another's increment), and the admitted call takes a
 * LiveCallSlot, which the transaction that closes it gives back. Not admitted, the call is in the table
 * and holds nothing: the caller rejects it.
 */
const insertLive = precompiledNamed(INBOUND_ROW_KEYS, (row: InboundRow) =>
  kysely()
    .with("ins", (db) =>
      db
        .insertInto("Call")
        .values(inboundValues(row, false))
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
        .where("accountId", "=", row.accountId)
        .where(concurrencyCapSet("AccountLimit")),
    )
    .with("admit", (db) =>
      db
        .updateTable("AccountLimit")
        .set((eb) => ({ liveCalls: eb("AccountLimit.liveCalls", "+", 1) }))
        .where("AccountLimit.accountId", "=", row.accountId)
        .where(concurrencyCapSet("AccountLimit"))
        .where(liveSlotFree("AccountLimit"))
        .where((eb) => eb.exists(eb.selectFrom("ins").select("ins.id")))
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
  precompiledNamed(INBOUND_ROW_KEYS, (row: InboundRow) =>
    kysely()
      .insertInto("Call")
      .values(inboundValues(row, reconciled))
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
const insertSimulated = precompiledNamed(INBOUND_ROW_KEYS, (row: InboundRow) =>
  kysely()
    .insertInto("Call")
    .values({ ...inboundValues(row, false), test: true })
    .onConflict((oc) => oc.column("callSid").doNothing())
    .returning((eb) => ["id", eb.lit(true).as("admitted")]),
);

/** A call answered during an outage, dated when its voice request came (NewInboundCall.at); rare, so not precompiled. */
const insertDatedAt = (at: Date) => (row: InboundRow) =>
  kysely()
    .insertInto("Call")
    .values({ ...inboundValues(row, false), createdAt: at, lastRequestAt: at })
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
  const query = insert({
    // Made here, not by routekit_id() (db/database-id.ts): about 9 µs of the database's CPU less per call.
    id: newDatabaseId(),
    callSid: call.callSid,
    accountId: call.accountId,
    phoneNumberId: call.phoneNumberId,
    fromNumber: call.fromNumber,
    toNumber: call.toNumber,
    status: call.status,
    statusRank: call.statusRank,
    onCallStartUrl: call.onCallStartUrl,
    onCallEndUrl: call.onCallEndUrl,
    onErrorUrl: call.onErrorUrl,
    answerPolicy:
      call.answerPolicy === null || call.answerPolicy === undefined ? null : JSON.stringify(call.answerPolicy),
  });
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
