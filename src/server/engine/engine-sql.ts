/**
 * The engine's statements, in Kysely on the shared pool (db/kysely.ts). Twilio
 * gives a call 15 seconds and the customer's backend owns most of them, so a
 * voice request costs two statements (one joined read, one insert) and a final
 * status one transaction; on a PostgreSQL server each is prepared once per
 * connection (db/prepared-statements.ts).
 */
import { sql, type Kysely, type QueryCreator, type Selectable } from "kysely";
import { executeCompiled, kysely, now, precompiled, type DB } from "../db/kysely";
import { hashRoutingToken } from "../services/accounts/engine-voice-url";
import { TERMINAL_RANK } from "./call-status";

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

export type EngineNumber = { id: string; onCallStartUrl: string; onCallEndUrl: string; onErrorUrl: string | null };

// The call's columns that decide it; the call log's (answer, error, TwiML of up to 16 KiB) are no part of that.
const CALL_COLUMNS = [
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

export type EngineLookup = {
  account: EngineAccount;
  number: EngineNumber | null;
  call: EngineCall | null;
  connection: EngineConnection | null;
};

// An outbound call is found by our own id (on its URLs), and only within the account; any other by its SID.
const lookup = (by: "sid" | "id") =>
  precompiled((tokenHash: string, to: string, key: string) =>
    kysely()
      .selectFrom("Account as a")
      .leftJoin("PhoneNumber as n", (j) =>
        j.on("n.phoneNumber", "=", to).onRef("n.accountId", "=", "a.id").on("n.isActive", "=", true),
      )
      .leftJoin("TwilioConnection as tc", "tc.accountId", "a.id")
      .leftJoin("Call as c", (j) =>
        by === "id" ? j.on("c.id", "=", key).onRef("c.accountId", "=", "a.id") : j.on("c.callSid", "=", key),
      )
      .select([
        ...ACCOUNT_COLUMNS,
        "n.id as numberId",
        "n.onCallStartUrl as numberStartUrl",
        "n.onCallEndUrl as numberEndUrl",
        "n.onErrorUrl as numberErrorUrl",
        "tc.accountSid as connectionAccountSid",
        "tc.authTokenEnc as connectionAuthTokenEnc",
        callAsJson.as("call"),
      ])
      // The routing token is found by its hash: the current one, or the one before a rotation for 24 hours.
      .where((eb) =>
        eb.or([
          eb("a.routingTokenHash", "=", tokenHash),
          eb.and([eb("a.previousRoutingTokenHash", "=", tokenHash), eb("a.previousRoutingTokenExpiresAt", ">", now())]),
        ]),
      ),
  );
const lookupBySid = lookup("sid");
const lookupById = lookup("id");

/** The account behind an engine URL, the number called (active only) and the call, in one read. */
export async function lookupEngineRequest(opts: {
  routingToken: string;
  to: string;
  callSid: string;
  callId: string | null;
}): Promise<EngineLookup | null> {
  const tokenHash = hashRoutingToken(opts.routingToken);
  const query = opts.callId
    ? lookupById(tokenHash, opts.to, opts.callId)
    : lookupBySid(tokenHash, opts.to, opts.callSid);
  const [row] = await executeCompiled(query);
  if (!row) return null;
  const { numberId, numberStartUrl, numberEndUrl, numberErrorUrl, connectionAccountSid, connectionAuthTokenEnc } = row;
  return {
    account: {
      id: row.id,
      status: row.status,
      stripeCustomerId: row.stripeCustomerId,
      currentPeriodStart: row.currentPeriodStart,
      currentPeriodEnd: row.currentPeriodEnd,
      webhookSecretEnc: row.webhookSecretEnc,
      previousWebhookSecretEnc: row.previousWebhookSecretEnc,
      previousWebhookSecretExpiresAt: row.previousWebhookSecretExpiresAt,
    },
    number:
      numberId && numberStartUrl && numberEndUrl
        ? { id: numberId, onCallStartUrl: numberStartUrl, onCallEndUrl: numberEndUrl, onErrorUrl: numberErrorUrl }
        : null,
    call: row.call,
    connection:
      connectionAccountSid && connectionAuthTokenEnc
        ? { accountSid: connectionAccountSid, authTokenEnc: connectionAuthTokenEnc }
        : null,
  };
}

type NewInboundCall = Omit<
  EngineCall,
  "id" | "metadata" | "answeredBy" | "providerAccountSid" | "providerAuthTokenEnc" | "direction"
> & {
  status: string;
  reconciled?: boolean;
};

/**
 * Records an inbound call once per SID. Twilio retries a voice request it got no
 * answer to, so a second insert of the same SID yields the call already there.
 */
export async function insertInboundCall(call: NewInboundCall): Promise<EngineCall | null> {
  return (await insertInboundCallOnce(call)).call;
}

/** The same, saying whether this insert made the row (`inserted`) or found it there. */
const insertInbound = (reconciled: boolean) =>
  precompiled(
    (
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
    ) =>
      kysely()
        .insertInto("Call")
        .values({
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
          reconciledAt: reconciled ? now() : null,
        })
        .onConflict((oc) => oc.column("callSid").doNothing())
        // Only the id: the rest of a new row is what was just sent, so it is not read back (15 columns decoded per call otherwise).
        .returning("id"),
  );
const insertLive = insertInbound(false);
const insertReconciled = insertInbound(true);

export async function insertInboundCallOnce(
  call: NewInboundCall,
): Promise<{ call: EngineCall | null; inserted: boolean }> {
  const insert = call.reconciled ? insertReconciled : insertLive;
  const query = insert(
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
    const made: EngineCall = {
      id: inserted.id,
      accountId,
      callSid,
      direction: "inbound",
      fromNumber,
      toNumber,
      phoneNumberId,
      metadata: null,
      statusRank,
      answeredBy: null,
      onCallStartUrl,
      onCallEndUrl,
      onErrorUrl,
      providerAccountSid: null,
      providerAuthTokenEnc: null,
    };
    return { call: made, inserted: true };
  }
  const existing = await kysely()
    .selectFrom("Call")
    .select(CALL_COLUMNS)
    .where("callSid", "=", call.callSid)
    .executeTakeFirst();
  return { call: existing && existing.accountId === call.accountId ? existing : null, inserted: false };
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
  kind: "status" | "reconciliation";
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
}): Promise<void> {
  const { rank } = opts;
  await withTimeline(kysely(), opts.callId, now(), opts.request, opts.status)
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
    .where("statusRank", "<", TERMINAL_RANK)
    .execute();
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
    request: TimelineRequest;
    clampToLifetime?: boolean;
  },
): Promise<number | null> {
  const failed = opts.status === "failed";
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
    .returning("durationSeconds")
    .executeTakeFirst();
  return result === undefined ? null : (result.durationSeconds ?? 0);
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
