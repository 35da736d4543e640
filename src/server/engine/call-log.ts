/**
 * What a call's timeline needs that the engine learns only once it has its
 * answer: how the call was decided, the TwiML returned, the `call.started`
 * attempt (docs/decisions.md §8, §11). Written in one statement after the TwiML is on
 * its way to Twilio, so the voice request gains no round trip before its
 * answer; a write that fails is tried again for a while, since Twilio does not
 * ask twice and the timeline would otherwise miss the call's decisive step.
 */
import { sql } from "kysely";
import { executeCompiled, kysely, now, precompiled } from "../db/kysely";
import { logger } from "../logger";
import type { EventEnvelope } from "../events/event-envelope";
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

// The call's answer, the voice request on its timeline, and the `call.started` delivery with its one attempt: one statement.
const recordAnswer = precompiled(
  (
    callId: string, answer: string, errorCode: string | null, errorMessage: string | null, twiml: string, requestAt: Date, requestStatus: string,
    accountId: string, eventId: string, callSid: string, url: string, payload: string, status: "DELIVERED" | "FAILED", at: Date, deliveredAt: Date | null,
    answerUse: string, statusCode: number | null, latencyMs: number, responseExcerpt: string | null, error: string | null,
  ) =>
    kysely()
      .with("c", (q) => q.updateTable("Call").set({ answer, errorCode, errorMessage, twiml, updatedAt: now() }).where("id", "=", callId).returning("id"))
      .with("r", (q) =>
        q
          .insertInto("CallRequest")
          .columns(["callId", "at", "kind", "callStatus"])
          .expression((eb) => eb.selectFrom("c").select((s) => ["c.id", s.val(requestAt).as("at"), s.val("voice").as("kind"), s.val(requestStatus).as("callStatus")])),
      )
      .with("d", (q) =>
        q
          .insertInto("WebhookDelivery")
          .columns(["accountId", "eventId", "eventType", "callSid", "url", "payload", "status", "attemptCount", "cycleAttempts", "lastAttemptAt", "deliveredAt", "createdAt", "synchronous", "answerUse"])
          .expression((eb) =>
            eb.selectFrom("c").select((s) => [
              s.val(accountId).as("accountId"),
              s.val(eventId).as("eventId"),
              s.val("call.started").as("eventType"),
              s.val(callSid).as("callSid"),
              s.val(url).as("url"),
              s.val(payload).as("payload"),
              sql<"DELIVERED" | "FAILED">`${status}::"DeliveryStatus"`.as("status"),
              s.val(1).as("attemptCount"),
              s.val(1).as("cycleAttempts"),
              s.val(at).as("lastAttemptAt"),
              s.val(deliveredAt).as("deliveredAt"),
              s.val(at).as("createdAt"),
              s.val(true).as("synchronous"),
              s.val(answerUse).as("answerUse"),
            ]),
          )
          .returning("id"),
      )
      .insertInto("WebhookAttempt")
      .columns(["deliveryId", "attemptedAt", "url", "statusCode", "latencyMs", "responseExcerpt", "error"])
      .expression((eb) =>
        eb.selectFrom("d").select((s) => [
          "d.id",
          s.val(at).as("attemptedAt"),
          s.val(url).as("url"),
          s.val(statusCode).as("statusCode"),
          s.val(latencyMs).as("latencyMs"),
          s.val(responseExcerpt).as("responseExcerpt"),
          s.val(error).as("error"),
        ]),
      ),
);

/** Records the answer after the response; never throws, never delays the caller. */
export function recordAnswerLater(rec: AnswerRecord): void {
  const a = rec.attempt;
  const delivered = a.statusCode !== null && a.statusCode >= 200 && a.statusCode <= 299 && rec.answer !== "fallback";
  const query = recordAnswer(
    rec.callId,
    rec.answer,
    rec.error?.code ?? null,
    cap(rec.error?.message ?? null, 1024),
    cap(rec.twiml, TWIML_MAX_CHARS)!,
    rec.requestAt,
    rec.requestStatus,
    rec.accountId,
    a.event.id,
    rec.callSid,
    a.url,
    JSON.stringify(a.event),
    delivered ? "DELIVERED" : "FAILED",
    a.at,
    delivered ? a.at : null,
    rec.answer === "fallback" ? (rec.error?.code ?? "START_CALLBACK_INVALID") : rec.answer,
    a.statusCode,
    Math.max(0, Math.round(a.latencyMs)),
    cap(a.responseBody, START_EXCERPT_MAX_CHARS),
    cap(a.error, 1024),
  );
  writeLater("call answer", rec.callSid, () => executeCompiled(query));
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
          "callSid", "accountId", "phoneNumberId", "direction", "fromNumber", "toNumber", "status", "statusRank", "onCallStartUrl", "onCallEndUrl", "onErrorUrl",
          "endedAt", "lastRequestAt", "createdAt", "answer", "errorCode", "errorMessage", "twiml",
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
            .where((w) => w(w.selectFrom(recentRejects.as("recent")).select((c) => c.fn.countAll<number>().as("n")), "<", REJECTED_CALLS_PER_DAY)),
        )
        .onConflict((oc) => oc.column("callSid").doNothing())
        .returning("id"),
    )
    .insertInto("CallRequest")
    .columns(["callId", "at", "kind", "callStatus"])
    .expression((eb) => eb.selectFrom("c").select((s) => ["c.id", s.val(rec.at).as("at"), s.val("voice").as("kind"), s.val(rec.requestStatus).as("callStatus")]));
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

function writeLater(what: string, callSid: string, write: () => Promise<unknown>): void {
  pending++;
  const attempt = (n: number): void => {
    write().then(
      () => pending--,
      (err: unknown) => {
        const delay = RETRY_DELAYS_MS[n];
        if (delay === undefined) {
          pending--;
          logger().error({ err: err instanceof Error ? err.message : String(err), callSid }, `could not record the ${what}`);
          return;
        }
        setTimeout(() => attempt(n + 1), delay).unref();
      },
    );
  };
  attempt(0);
}
