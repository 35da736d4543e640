/**
 * What a call's timeline needs that the engine learns only once it has its
 * answer: how the call was decided, the TwiML returned, the `call.started`
 * attempt (decisions §8, §11). Written in one statement after the TwiML is on
 * its way to Twilio, so the voice request gains no round trip before its
 * answer; a write that fails is tried again for a while, since Twilio does not
 * ask twice and the timeline would otherwise miss the call's decisive step.
 */
import { pool } from "../db/client";
import { cuid } from "../db/cuid";
import { UTC_NOW, utcParam } from "../db/sql-time";
import { env } from "../env";
import { logger } from "../logger";
import type { EventEnvelope } from "../events/event-envelope";
import { TERMINAL_RANK } from "./call-status";

/** How the call was decided (decisions §11). */
export type CallAnswer = "xml" | "json-twiml" | "json-actions" | "fallback" | "reject";

/** The TwiML kept per call: answers are small, and a timeline needs no more to show what Twilio was told. */
export const TWIML_MAX_CHARS = 16 * 1024;
/** The answer's excerpt kept on a synchronous attempt (decisions §11: up to 4 KiB). */
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

function statement(name: string, text: string) {
  return (values: unknown[]) => (env().databaseUrl ? { name: `routekit_${name}`, text, values } : { text, values });
}

// The call's answer, the voice request on its timeline, and the `call.started` delivery with its one attempt.
const recordAnswerSql = statement(
  "call_log_answer",
  `WITH c AS (
     UPDATE "Call" SET "answer" = $2, "errorCode" = $3, "errorMessage" = $4, "twiml" = $5, "updatedAt" = ${UTC_NOW}
     WHERE "id" = $1 RETURNING "id"
   ), r AS (
     INSERT INTO "CallRequest" ("callId", "at", "kind", "callStatus") SELECT "id", ${utcParam(6)}, 'voice', $7 FROM c
   ), d AS (
     INSERT INTO "WebhookDelivery" ("id", "accountId", "eventId", "eventType", "callSid", "url", "payload", "status", "attemptCount",
       "cycleAttempts", "lastAttemptAt", "deliveredAt", "createdAt", "updatedAt", "synchronous", "answerUse")
     SELECT $8, $9, $10, 'call.started', $11, $12, $13, $14::"DeliveryStatus", 1, 1, ${utcParam(15)},
       CASE WHEN $14 = 'DELIVERED' THEN ${utcParam(15)} END, ${utcParam(15)}, ${UTC_NOW}, true, $16
     FROM c RETURNING "id"
   )
   INSERT INTO "WebhookAttempt" ("id", "deliveryId", "attemptedAt", "url", "statusCode", "latencyMs", "responseExcerpt", "error")
   SELECT $17, d."id", ${utcParam(15)}, $12, $18, $19, $20, $21 FROM d`,
);

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

/** Records the answer after the response; never throws, never delays the caller. */
export function recordAnswerLater(rec: AnswerRecord): void {
  const a = rec.attempt;
  const delivered = a.statusCode !== null && a.statusCode >= 200 && a.statusCode <= 299 && rec.answer !== "fallback";
  const values = [
    rec.callId,
    rec.answer,
    rec.error?.code ?? null,
    cap(rec.error?.message ?? null, 1024),
    cap(rec.twiml, TWIML_MAX_CHARS),
    rec.requestAt.toISOString(),
    rec.requestStatus,
    cuid(),
    rec.accountId,
    a.event.id,
    rec.callSid,
    a.url,
    JSON.stringify(a.event),
    delivered ? "DELIVERED" : "FAILED",
    a.at.toISOString(),
    rec.answer === "fallback" ? (rec.error?.code ?? "START_CALLBACK_INVALID") : rec.answer,
    cuid(),
    a.statusCode,
    Math.max(0, Math.round(a.latencyMs)),
    cap(a.responseBody, START_EXCERPT_MAX_CHARS),
    cap(a.error, 1024),
  ];
  writeLater("call answer", rec.callSid, () => pool().query(recordAnswerSql(values)));
}

// A rejected call, once per SID, within the account's daily bound.
const recordRejectedSql = statement(
  "call_log_rejected",
  `WITH c AS (
     INSERT INTO "Call" ("id", "callSid", "accountId", "phoneNumberId", "direction", "fromNumber", "toNumber", "status", "statusRank",
       "onCallStartUrl", "onCallEndUrl", "onErrorUrl", "endedAt", "lastRequestAt", "createdAt", "updatedAt",
       "answer", "errorCode", "errorMessage", "twiml")
     SELECT $1, $2, $3, $4, 'inbound', $5, $6, 'rejected', ${TERMINAL_RANK}, $7, $8, $9, ${utcParam(10)}, ${utcParam(10)}, ${utcParam(10)}, ${UTC_NOW},
       'reject', $11, $12, $13
     WHERE (SELECT count(*) FROM (SELECT 1 FROM "Call" WHERE "accountId" = $3 AND "status" = 'rejected'
              AND "createdAt" > ${UTC_NOW} - interval '1 day' LIMIT ${REJECTED_CALLS_PER_DAY}) recent) < ${REJECTED_CALLS_PER_DAY}
     ON CONFLICT ("callSid") DO NOTHING
     RETURNING "id"
   )
   INSERT INTO "CallRequest" ("callId", "at", "kind", "callStatus") SELECT "id", ${utcParam(10)}, 'voice', $14 FROM c`,
);

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

export function recordRejectedLater(rec: RejectedCall): void {
  const values = [
    cuid(),
    rec.callSid,
    rec.accountId,
    rec.phoneNumberId,
    rec.from,
    rec.to,
    rec.urls.onCallStartUrl,
    rec.urls.onCallEndUrl,
    rec.urls.onErrorUrl,
    rec.at.toISOString(),
    rec.error.code,
    rec.error.message,
    rec.twiml,
    rec.requestStatus,
  ];
  writeLater("rejected call", rec.callSid, () => pool().query(recordRejectedSql(values)));
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
