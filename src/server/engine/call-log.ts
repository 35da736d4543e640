/**
 * What a call's timeline needs that the engine learns only once it has its
 * answer: how the call was decided, the TwiML returned, the `call.started`
 * attempt (docs/decisions.md §8, §11). Written after the TwiML is on its way to
 * Twilio, so the voice request gains no round trip before its answer, and in
 * batches: one statement for every call answered meanwhile. A write that fails
 * is tried again for a while, since Twilio does not ask twice and the timeline
 * would otherwise miss the call's decisive step.
 */
import { sql } from "kysely";
import { executeCompiled, kysely, now, precompiled } from "../db/kysely";
import { logger } from "../logger";
import type { EventEnvelope } from "../webhooks/event-envelope";
import { TERMINAL_RANK } from "./call-status";

/** How the call was decided (docs/decisions.md §11). */
export type CallAnswer = "xml" | "json-twiml" | "json-actions" | "fallback" | "reject";

/** The TwiML kept per call: answers are small, and a timeline needs no more to show what Twilio was told. */
export const TWIML_MAX_CHARS = 16 * 1024;
/** The answer's excerpt kept on a synchronous attempt (docs/decisions.md §11: up to 4 KiB). */
export const START_EXCERPT_MAX_CHARS = 4 * 1024;
/**
 * Rejected calls recorded per account per 24 hours. A reject costs whoever
 * sends it nothing, and an account without a Twilio connection cannot tell a
 * forged request from Twilio's, so a flood must not grow the table without
 * bound: past this, rejects are still answered and still send `call.error`,
 * they are only not listed.
 */
export const REJECTED_CALLS_PER_DAY = 1_000;

const cap = (s: string | null, n: number) => (s === null ? null : s.length > n ? s.slice(0, n) : s);

export type StartAttempt = {
  url: string;
  event: EventEnvelope;
  /** The event as sent: its JSON, signed. */
  payload: string;
  /** When the POST began. */
  at: Date;
  latencyMs: number;
  /** Null when no HTTP answer came (timeout, refused address, connection error). */
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
};

export type AnswerRecord = {
  callId: string;
  accountId: string;
  callSid: string;
  /** When Twilio's voice request arrived, and its CallStatus. */
  requestAt: Date;
  requestStatus: string;
  answer: CallAnswer;
  error: { code: string; message: string } | null;
  twiml: string;
  attempt: StartAttempt;
};

/** One call's answer as the batched statement takes it: a column each, unnested together. */
const ANSWER_COLUMNS = {
  callId: "text",
  answer: "text",
  errorCode: "text",
  errorMessage: "text",
  twiml: "text",
  requestAt: "timestamptz",
  requestStatus: "text",
  accountId: "text",
  eventId: "text",
  callSid: "text",
  url: "text",
  payload: "text",
  status: '"DeliveryStatus"',
  at: "timestamptz",
  deliveredAt: "timestamptz",
  answerUse: "text",
  statusCode: "int4",
  latencyMs: "int4",
  responseExcerpt: "text",
  error: "text",
} as const;
type AnswerRow = {
  callId: string;
  answer: string;
  errorCode: string | null;
  errorMessage: string | null;
  twiml: string;
  requestAt: Date;
  requestStatus: string;
  accountId: string;
  eventId: string;
  callSid: string;
  url: string;
  payload: string;
  status: "DELIVERED" | "FAILED";
  at: Date;
  deliveredAt: Date | null;
  answerUse: string;
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
};
const ANSWER_COLUMN_NAMES = Object.keys(ANSWER_COLUMNS) as (keyof AnswerRow)[];

/**
 * Calls' answers, their voice requests on their timelines, and each call's `call.started` delivery with its
 * one attempt: one statement for any number of calls (one array per column, so its text never changes and
 * it is prepared once per connection).
 */
const recordAnswers = precompiled((...columns: unknown[][]) =>
  kysely()
    .with(
      "v",
      () =>
        // Kysely writes a raw CTE body without the parentheses PostgreSQL needs.
        sql<AnswerRow>`(select * from unnest(${sql.join(ANSWER_COLUMN_NAMES.map((c, i) => sql`${columns[i]}::${sql.raw(ANSWER_COLUMNS[c])}[]`))}) as v(${sql.join(ANSWER_COLUMN_NAMES.map((c) => sql.ref(c)))}))`,
    )
    .with("c", (q) =>
      q
        .updateTable("Call")
        .from("v")
        .set((eb) => ({
          answer: eb.ref("v.answer"),
          errorCode: eb.ref("v.errorCode"),
          errorMessage: eb.ref("v.errorMessage"),
          twiml: eb.ref("v.twiml"),
          updatedAt: now(),
        }))
        .whereRef("Call.id", "=", "v.callId")
        .returning("Call.id"),
    )
    .with("r", (q) =>
      q
        .insertInto("CallRequest")
        .columns(["callId", "at", "kind", "callStatus"])
        .expression((eb) =>
          eb
            .selectFrom("v")
            .innerJoin("c", "c.id", "v.callId")
            .select((s) => ["v.callId", "v.requestAt", s.val("voice").as("kind"), "v.requestStatus"]),
        ),
    )
    .with("d", (q) =>
      q
        .insertInto("WebhookDelivery")
        .columns([
          "accountId",
          "eventId",
          "eventType",
          "callSid",
          "url",
          "payload",
          "status",
          "attemptCount",
          "cycleAttempts",
          "lastAttemptAt",
          "deliveredAt",
          "createdAt",
          "synchronous",
          "answerUse",
        ])
        .expression((eb) =>
          eb
            .selectFrom("v")
            .innerJoin("c", "c.id", "v.callId")
            .select((s) => [
              "v.accountId",
              "v.eventId",
              s.val("call.started").as("eventType"),
              "v.callSid",
              "v.url",
              "v.payload",
              "v.status",
              s.val(1).as("attemptCount"),
              s.val(1).as("cycleAttempts"),
              "v.at as lastAttemptAt",
              "v.deliveredAt",
              "v.at as createdAt",
              s.val(true).as("synchronous"),
              "v.answerUse",
            ]),
        )
        .returning(["id", "eventId"]),
    )
    .insertInto("WebhookAttempt")
    .columns(["deliveryId", "attemptedAt", "url", "statusCode", "latencyMs", "responseExcerpt", "error"])
    .expression((eb) =>
      eb
        .selectFrom("d")
        .innerJoin("v", "v.eventId", "d.eventId")
        .select(["d.id", "v.at", "v.url", "v.statusCode", "v.latencyMs", "v.responseExcerpt", "v.error"]),
    ),
);

const runAnswers = (rows: AnswerRow[]) =>
  executeCompiled(recordAnswers(...ANSWER_COLUMN_NAMES.map((c) => rows.map((r) => r[c]))));

/**
 * Answers go out in batches: one statement in flight, and what arrives while it
 * runs goes in the next one. A quiet engine writes each answer at once, as
 * before; a busy one writes many per statement (one round trip and one commit
 * for all, not one each), which is most of what the call log costs the database.
 */
const BATCH_MAX = 100;
const IN_FLIGHT_MAX = 2;
let queued: AnswerRow[] = [];
let inFlight = 0;

function flushAnswers(): void {
  // A second statement only when a full batch waits: the first is then behind.
  while (queued.length && (inFlight === 0 || (inFlight < IN_FLIGHT_MAX && queued.length >= BATCH_MAX))) {
    // A call answered twice (Twilio retrying) goes in separate statements, so the later answer is the one kept.
    const seen = new Set<string>();
    let n = 0;
    while (n < queued.length && n < BATCH_MAX && !seen.has(queued[n]!.callId)) seen.add(queued[n++]!.callId);
    const batch = queued.slice(0, n);
    queued = queued.slice(n);
    inFlight++;
    runAnswers(batch)
      .then(
        () => void (pending -= batch.length),
        (err: unknown) => {
          logger().warn(
            { err: err instanceof Error ? err.message : String(err), calls: batch.length },
            "could not record a batch of call answers; trying each alone",
          );
          // Each answer is then tried again alone, on the usual schedule, so one that cannot be written holds back no other.
          pending -= batch.length;
          for (const row of batch) writeLater("call answer", row.callSid, () => runAnswers([row]), 1);
        },
      )
      .finally(() => {
        inFlight--;
        flushAnswers();
      });
  }
}

/** Records the answer after the response; never throws, never delays the caller. */
export function recordAnswerLater(rec: AnswerRecord): void {
  const a = rec.attempt;
  const delivered = a.statusCode !== null && a.statusCode >= 200 && a.statusCode <= 299 && rec.answer !== "fallback";
  pending++;
  queued.push({
    callId: rec.callId,
    answer: rec.answer,
    errorCode: rec.error?.code ?? null,
    errorMessage: cap(rec.error?.message ?? null, 1024),
    twiml: cap(rec.twiml, TWIML_MAX_CHARS)!,
    requestAt: rec.requestAt,
    requestStatus: rec.requestStatus,
    accountId: rec.accountId,
    eventId: a.event.id,
    callSid: rec.callSid,
    url: a.url,
    payload: a.payload,
    status: delivered ? "DELIVERED" : "FAILED",
    at: a.at,
    deliveredAt: delivered ? a.at : null,
    answerUse: rec.answer === "fallback" ? (rec.error?.code ?? "START_CALLBACK_INVALID") : rec.answer,
    statusCode: a.statusCode,
    latencyMs: Math.max(0, Math.round(a.latencyMs)),
    responseExcerpt: cap(a.responseBody, START_EXCERPT_MAX_CHARS),
    error: cap(a.error, 1024),
  });
  flushAnswers();
}

export type RejectedCall = {
  callSid: string;
  accountId: string;
  /** Null for a number not registered to the account. */
  phoneNumberId: string | null;
  from: string;
  to: string;
  urls: { onCallStartUrl: string; onCallEndUrl: string; onErrorUrl: string | null };
  at: Date;
  requestStatus: string;
  error: { code: string; message: string };
  twiml: string;
};

/** A rejected call, once per SID, within the account's daily bound, with the voice request on its timeline. */
export function recordRejectedLater(rec: RejectedCall): void {
  const recentRejects = kysely()
    .selectFrom("Call")
    .select(sql<number>`1`.as("one"))
    .where("accountId", "=", rec.accountId)
    .where("status", "=", "rejected")
    .where("createdAt", ">", sql<Date>`now() - interval '1 day'`)
    .limit(REJECTED_CALLS_PER_DAY);
  const query = kysely()
    .with("c", (q) =>
      q
        .insertInto("Call")
        .columns([
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
          "endedAt",
          "lastRequestAt",
          "createdAt",
          "answer",
          "errorCode",
          "errorMessage",
          "twiml",
        ])
        .expression(
          q
            .selectNoFrom((s) => [
              s.val(rec.callSid).as("callSid"),
              s.val(rec.accountId).as("accountId"),
              s.val(rec.phoneNumberId).as("phoneNumberId"),
              s.val("inbound").as("direction"),
              s.val(rec.from).as("fromNumber"),
              s.val(rec.to).as("toNumber"),
              s.val("rejected").as("status"),
              s.val(TERMINAL_RANK).as("statusRank"),
              s.val(rec.urls.onCallStartUrl).as("onCallStartUrl"),
              s.val(rec.urls.onCallEndUrl).as("onCallEndUrl"),
              s.val(rec.urls.onErrorUrl).as("onErrorUrl"),
              s.val(rec.at).as("endedAt"),
              s.val(rec.at).as("lastRequestAt"),
              s.val(rec.at).as("createdAt"),
              s.val("reject").as("answer"),
              s.val(rec.error.code).as("errorCode"),
              s.val(rec.error.message).as("errorMessage"),
              s.val(rec.twiml).as("twiml"),
            ])
            .where((w) =>
              w(
                w.selectFrom(recentRejects.as("recent")).select((c) => c.fn.countAll<number>().as("n")),
                "<",
                REJECTED_CALLS_PER_DAY,
              ),
            ),
        )
        .onConflict((oc) => oc.column("callSid").doNothing())
        .returning("id"),
    )
    .insertInto("CallRequest")
    .columns(["callId", "at", "kind", "callStatus"])
    .expression((eb) =>
      eb
        .selectFrom("c")
        .select((s) => [
          "c.id",
          s.val(rec.at).as("at"),
          s.val("voice").as("kind"),
          s.val(rec.requestStatus).as("callStatus"),
        ]),
    );
  writeLater("rejected call", rec.callSid, () => query.execute());
}

const RETRY_DELAYS_MS = [250, 1_000, 4_000, 15_000, 60_000];
let pending = 0;

/** Writes still being tried. */
export function pendingCallLogWrites(): number {
  return pending;
}

/** On shutdown: lets the writes in flight land (or give up after `timeoutMs`) before the pool closes. */
export async function drainCallLogWrites(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pending > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
}

/** `tried`: attempts already made (a failed batch counts as the first), so the schedule goes on from there. */
function writeLater(what: string, callSid: string, write: () => Promise<unknown>, tried = 0): void {
  pending++;
  const attempt = (n: number): void => {
    write().then(
      () => pending--,
      (err: unknown) => {
        const delay = RETRY_DELAYS_MS[n];
        if (delay === undefined) {
          pending--;
          logger().error(
            { err: err instanceof Error ? err.message : String(err), callSid },
            `could not record the ${what}`,
          );
          return;
        }
        setTimeout(() => attempt(n + 1), delay).unref();
      },
    );
  };
  if (tried === 0) attempt(0);
  else setTimeout(() => attempt(tried), RETRY_DELAYS_MS[tried - 1]).unref();
}
