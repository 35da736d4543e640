/**
 * Asking the customer's backend what to do with a call (docs/decisions.md §12): `call.started` to the
 * primary, its one retry, the stored fallback or the fallback URL, then the last resort. decideCall
 * answers the TwiML and what the call log needs; askBackend also writes that after the answer.
 */
import { CallbackRequestError } from "../webhooks/http/callback-http-client";
import { transactionWithEvents } from "../webhooks/enqueue-event";
import { buildEvent, type EventEnvelope } from "../webhooks/event-envelope";
import { postCallStarted } from "../webhooks/post-call-started";
import { signingSecrets } from "../webhooks/webhook-secrets";
import { listenedCallStarted } from "../webhooks/listen/listen-hub";
import type { EngineParams } from "./engine-params";
import type { EngineAccount, EngineCall } from "../services/calls/call-row";
import { eventData } from "../services/calls/finish-call";
import { fallbackTwiml, interpretStartAnswer } from "./start-answer";
import { recordAnswerLater, type AnswerRecord, type StartAttempt } from "./call-log";
import { afterAnswer } from "./write-later";
import { startShadow } from "./shadow";
import { twimlFromActions } from "../services/answers/actions-to-twiml";
import { env } from "../env";
import type { CallAnswer, StartAttemptRole, TakenOverBy } from "../../shared/schemas/enums";
import type { AnswerPolicy, StoredFallback, StoredLastResort } from "../../shared/schemas/answer-policy";

/**
 * One voice request's progress, shared by its database part and the outage path that may take it over
 * (answer-voice-request.ts): once the backend is asked (`decided`) the request is past its database
 * part; once the outage path took it over (`abandoned`), the database part asks nobody.
 */
export type VoiceGate = { decided: boolean; abandoned: boolean };

/** Thrown by decideCall when the outage path already answered the request: nobody is asked twice. */
export class AbandonedVoiceRequest extends Error {
  constructor() {
    super("the voice request was answered by the outage path");
    this.name = "AbandonedVoiceRequest";
  }
}

/** What the backend (or a fallback) decided: the TwiML, the call log's record, and a failed primary's call.error. */
export type CallDecision = { twiml: string; record: AnswerRecord; callError: EventEnvelope | null };

/** Kept back from VOICE_ANSWER_BUDGET_MS for building and sending the answer itself. */
const ANSWER_MARGIN_MS = 50;
/** A retry of a refused or reset connection needs this much of the primary's budget left (docs/decisions.md §12). */
const RETRY_MIN_MS = 1000;
/** Less than this left of the whole budget: a fallback URL is not tried, the last resort answers. */
const FALLBACK_URL_MIN_MS = 100;

type Failure = { code: string; message: string };
type Try =
  | { ok: true; twiml: string; form: "xml" | "json-twiml" | "json-actions" }
  | { ok: false; failure: Failure; retryable: boolean };
type Decision = { answer: CallAnswer; twiml: string; takenOverBy: TakenOverBy };

/**
 * `call.started` to the customer's backend (docs/decisions.md §12): its answer is the call's TwiML.
 * The primary (onCallStartUrl) gets `answerTimeoutMs`; a refused or reset connection is tried once
 * more at once while at least 1 s of that remains. When no usable answer came, the call's stored
 * fallback decides at once (TwiML, or actions built here), or its fallback URL gets the same signed
 * event with `data.fallback` and what remains of VOICE_ANSWER_BUDGET_MS; then the last resort, else
 * the apology. A failed primary sends `call.error` saying what took over. Every try and how its
 * answer was used go to the call log once the TwiML is on its way.
 */
export async function decideCall(
  account: EngineAccount,
  call: EngineCall,
  params: EngineParams,
  receivedAt: Date,
  opts: {
    /** A simulated call (docs/decisions.md §21): its events carry `data.test = true`. */
    test?: boolean;
    /** The voice request's gate (answer-voice-request.ts): an abandoned request asks nobody. */
    gate?: VoiceGate;
    /** The number is `listen` (docs/decisions.md §19): its primary is the account's listeners while one is connected. */
    listen?: boolean;
    /** The number's shadow (docs/decisions.md §23, shadow.ts), as the lookup read it; absent or null: none. */
    shadow?: unknown;
  } = {},
): Promise<CallDecision> {
  // Checked and set in one turn of the event loop: the outage path's timer cannot slip in between.
  if (opts.gate?.abandoned) throw new AbandonedVoiceRequest();
  if (opts.gate) opts.gate.decided = true;
  const test = opts.test === true;
  const config = env();
  const policy = (call.answerPolicy ?? {}) as AnswerPolicy;
  const marked = test ? { test: true as const } : {};
  // The budget runs from the voice request's arrival (never from further back than a second: a replayed time).
  const deadline = Math.max(receivedAt.getTime(), Date.now() - 1000) + config.voiceAnswerBudgetMs - ANSWER_MARGIN_MS;
  const event = buildEvent("call.started", eventData(call, { status: params.CallStatus, ...marked }));
  const payload = JSON.stringify(event);
  const secrets = signingSecrets(account);
  const attempts: StartAttempt[] = [];
  // The primary's transport, chosen once: only a listen number pays for the look for listeners.
  const primaryTransport = (opts.listen && (await listenedCallStarted(account.id))) || postCallStarted;

  const ask = async (role: StartAttemptRole, url: string, body: string, timeoutMs: number): Promise<Try> => {
    const attempt: StartAttempt = {
      role,
      url,
      at: new Date(),
      latencyMs: 0,
      statusCode: null,
      responseBody: null,
      error: null,
      outcome: null,
    };
    attempts.push(attempt);
    const t0 = performance.now();
    const what = role === "fallback-url" ? "fallback URL" : "onCallStartUrl";
    try {
      const post = role === "fallback-url" ? postCallStarted : primaryTransport;
      const res = await post({ url, event, body, secrets, timeoutMs: Math.max(1, Math.floor(timeoutMs)) });
      attempt.latencyMs = performance.now() - t0;
      attempt.statusCode = res.status;
      attempt.responseBody = res.body;
      const answer = interpretStartAnswer({
        status: res.status,
        contentType: res.headers["content-type"] ?? null,
        body: res.body,
      });
      if (answer.ok) {
        attempt.outcome = answer.form;
        return answer;
      }
      attempt.outcome = answer.code;
      const message = role === "fallback-url" ? answer.message.replace(/^onCallStartUrl/, what) : answer.message;
      return { ok: false, failure: { code: answer.code, message }, retryable: false };
    } catch (err) {
      attempt.latencyMs = performance.now() - t0;
      const failure =
        err instanceof CallbackRequestError
          ? {
              code: err.kind === "timeout" ? "START_CALLBACK_TIMEOUT" : "START_CALLBACK_UNREACHABLE",
              message: `${what}: ${err.message}`,
            }
          : { code: "START_CALLBACK_UNREACHABLE", message: `${what} could not be reached.` };
      attempt.error = failure.message;
      attempt.outcome = failure.code;
      return { ok: false, failure, retryable: err instanceof CallbackRequestError && err.refusedBeforeAnswer };
    }
  };

  const primaryStart = Date.now();
  const primaryEnd =
    primaryStart + Math.min(policy.answerTimeoutMs ?? config.callbackStartTimeoutMs, deadline - primaryStart);
  const primaryTry = ask("primary", call.onCallStartUrl, payload, primaryEnd - primaryStart);
  // docs/decisions.md §23: the shadow's copy goes out in the same turn, just after the primary's is on its way,
  // and nothing below waits for it.
  const shadow = opts.shadow
    ? startShadow({
        shadow: opts.shadow,
        account,
        call,
        event,
        secrets,
        timeoutMs: primaryEnd - primaryStart,
        receivedAt,
      })
    : null;
  let result = await primaryTry;
  const primaryFailure = result.ok ? null : result.failure;
  if (!result.ok && result.retryable && primaryEnd - Date.now() >= RETRY_MIN_MS) {
    result = await ask("retry", call.onCallStartUrl, payload, primaryEnd - Date.now());
  }

  shadow?.settle({
    answer: result.ok ? result.form : result.failure.code,
    twiml: result.ok ? result.twiml : null,
    latencyMs: attempts.reduce((sum, a) => sum + a.latencyMs, 0),
  });
  let decision: Decision;
  if (result.ok) {
    decision = { answer: result.form, twiml: result.twiml, takenOverBy: "retry" };
  } else {
    decision =
      (await decideByFallback(
        policy.fallback,
        primaryFailure!,
        (url, body) => {
          const left = deadline - Date.now();
          return left >= FALLBACK_URL_MIN_MS ? ask("fallback-url", url, body, left) : null;
        },
        call.onCallStartUrl,
        event,
      )) ?? lastResort(policy.lastResort);
  }

  const record: AnswerRecord = {
    callId: call.id,
    accountId: account.id,
    callSid: call.callSid,
    requestAt: receivedAt,
    requestStatus: params.CallStatus ?? "ringing",
    answer: decision.answer,
    error: primaryFailure,
    twiml: decision.twiml,
    event,
    payload,
    attempts,
  };
  // Without an onErrorUrl, account endpoints subscribed to call.error still receive it (docs/decisions.md §15).
  const callError = primaryFailure
    ? buildEvent(
        "call.error",
        eventData(call, {
          status: params.CallStatus,
          error: primaryFailure,
          takenOverBy: decision.takenOverBy,
          ...marked,
        }),
      )
    : null;
  return { twiml: decision.twiml, record, callError };
}

/**
 * decideCall, with what it learnt written after the answer: the call log (call-log.ts) and a failed
 * primary's `call.error`. A stored fallback goes back to Twilio at once (docs/decisions.md §12), not
 * after a transaction; both are queued durably a moment later and tried again if the database blinks.
 */
export async function askBackend(
  account: EngineAccount,
  call: EngineCall,
  params: EngineParams,
  receivedAt: Date,
  opts: { test?: boolean; gate?: VoiceGate; listen?: boolean; shadow?: unknown } = {},
): Promise<string> {
  const { twiml, record, callError } = await decideCall(account, call, params, receivedAt, opts);
  recordAnswerLater(record);
  if (callError) {
    const url = call.onErrorUrl;
    afterAnswer("call.error", call.callSid, () =>
      transactionWithEvents((_client, emit) => emit({ accountId: account.id, url, event: callError })),
    );
  }
  return twiml;
}

/**
 * The call's stored fallback, when the primary gave no usable answer: TwiML and actions answer at
 * once (checked when saved; built here in well under a millisecond); a URL gets the same event, with
 * why it falls back, if enough of the budget remains. Null when nothing of it could decide.
 */
async function decideByFallback(
  fallback: StoredFallback | undefined,
  failure: Failure,
  askUrl: (url: string, body: string) => Promise<Try> | null,
  primaryUrl: string,
  event: EventEnvelope,
): Promise<Decision | null> {
  if (!fallback) return null;
  if ("twiml" in fallback && typeof fallback.twiml === "string") {
    return {
      answer: "fallback-twiml",
      twiml: fallback.twiml.replace(/^[\ufeff\s]+/, ""),
      takenOverBy: "fallback-twiml",
    };
  }
  if ("actions" in fallback) {
    const built = twimlFromActions(fallback.actions);
    return built.ok ? { answer: "fallback-actions", twiml: built.twiml, takenOverBy: "fallback-actions" } : null;
  }
  if ("url" in fallback && typeof fallback.url === "string") {
    const body = JSON.stringify({ ...event, data: { ...event.data, fallback: { reason: failure.code, primaryUrl } } });
    const tried = await askUrl(fallback.url, body);
    if (tried?.ok) return { answer: "fallback-url", twiml: tried.twiml, takenOverBy: "fallback-url" };
  }
  return null;
}

/** The customer's lastResort actions, else the built-in apology: `fallback` either way. */
function lastResort(last: StoredLastResort | undefined): Decision {
  if (last) {
    const built = twimlFromActions(last.actions);
    if (built.ok) return { answer: "fallback", twiml: built.twiml, takenOverBy: "last-resort" };
  }
  return { answer: "fallback", twiml: fallbackTwiml(), takenOverBy: "apology" };
}
