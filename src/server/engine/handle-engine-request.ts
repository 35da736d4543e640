import { randomBytes } from "node:crypto";
import { AppError } from "../errors/app-error";
import { decryptSecret } from "../crypto/secret-box";
import { CallbackRequestError } from "../webhooks/http/callback-http-client";
import { transactionWithEvents } from "../webhooks/enqueue-event";
import { buildEvent } from "../webhooks/event-envelope";
import { postCallStarted } from "../webhooks/post-call-started";
import { signingSecrets } from "../webhooks/webhook-secrets";
import { isStatusCallback, isTerminal, statusRank, TERMINAL_RANK } from "./call-status";
import { callStatusOf, carrierCodesOf, type EngineParams } from "./engine-params";
import { shownCallStatus, type CallEndReason } from "../schemas/enums";
import {
  advanceCall,
  bindCallSid,
  insertInboundCallOnce,
  lookupEngineRequest,
  rejectUnadmittedCall,
  type EngineAccount,
  type EngineCall,
  type EngineGuard,
  type EngineLookup,
  type EngineNumber,
} from "./engine-sql";
import { eventData, finishCall } from "../services/calls/finish-call";
import { REJECT_BUSY_TWIML, REJECT_TWIML, fallbackTwiml, interpretStartAnswer } from "./start-answer";
import { verifyTwilioSignature } from "./verify-twilio-signature";
import { afterAnswer, recordAnswerLater, recordRejectedLater, whenAnswerRecorded, type StartAttempt } from "./call-log";
import { twimlFromActions } from "./answer/actions-to-twiml";
import { env } from "../env";
import type { EventEnvelope } from "../webhooks/event-envelope";
import type { CallAnswer, StartAttemptRole, TakenOverBy } from "../schemas/enums";
import type { AnswerPolicy, StoredFallback, StoredLastResort } from "../schemas/answer-policy";

export const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

export type EngineRequest = {
  routingToken: string;
  /** Path and query as received; the signed URL is PUBLIC_BASE_URL + this. */
  pathAndQuery: string;
  /** Our own call id, on outbound calls' URLs. */
  callId: string | null;
  /** Validated (engine-params.ts), in a null-prototype object. */
  params: EngineParams;
  signature: string | null;
  /** When Twilio's request arrived; a final status applied later from the journal ends the call then. */
  receivedAt?: Date;
};

/**
 * Twilio's voice requests and status callbacks for one account (docs/decisions.md §7).
 * Answers TwiML; the caller turns AppErrors into HTTP errors.
 */
export async function handleEngineRequest(req: EngineRequest): Promise<string> {
  const callSid = req.params.CallSid;
  if (!callSid)
    throw new AppError("VALIDATION_FAILED", "Missing CallSid.", {
      details: [{ path: "CallSid", message: "is required" }],
    });
  const statusCallback = isStatusCallback(req.params);
  const found = await lookupEngineRequest({
    routingToken: req.routingToken,
    to: req.params.To ?? "",
    callSid,
    callId: req.callId,
    at: req.receivedAt ?? new Date(),
    // A voice request of a call with no id of ours: its insert may ride on the lookup (the plain case).
    insert: statusCallback || req.callId ? undefined : inboundInsertOf(req.params),
  });
  if (!found) throw new AppError("NOT_FOUND", "Unknown engine URL.");
  const { account, number, call } = found;
  if ((call && call.accountId !== account.id) || (req.callId && !call))
    throw new AppError("NOT_FOUND", "Unknown call.");

  const verified = verifyRequest(found, req);
  let bound = call;
  if (call && call.callSid !== callSid && call.callSid.startsWith("pending:")) {
    await bindCallSid(call.id, callSid);
    bound = { ...call, callSid };
  }

  if (statusCallback) {
    const known = bound ?? (verified ? await adoptCompletedCall(account, number, req.params) : null);
    if (known) await applyStatus(account, known, req.params, req.receivedAt ?? new Date(), verified);
    return EMPTY_TWIML;
  }
  const receivedAt = req.receivedAt ?? new Date();
  if (bound) return answerKnownCall(account, bound, req.params, receivedAt);
  return answerInbound(account, number, found.guard, req.params, receivedAt, found.inserted);
}

/** The row a new inbound call's voice request makes: the status it reports (ringing, as Twilio shows it). */
function inboundInsertOf(params: EngineParams) {
  const status = shownCallStatus(callStatusOf(params));
  return { fromNumber: params.From ?? "", status, statusRank: Math.max(0, statusRank(status)) };
}

/**
 * Checks X-Twilio-Signature where we hold a token to check it with: an outbound
 * call's own (while it lives), else the account's Twilio connection, whose
 * every request must be signed and carry its AccountSid (docs/decisions.md §10).
 * True when the request is proven Twilio's; false when nothing can prove it
 * (no connection, not an outbound call of ours): such a request is trusted
 * only as far as it can do no harm.
 */
function verifyRequest(found: EngineLookup, req: EngineRequest): boolean {
  const { call, connection } = found;
  const check = (authToken: string, accountSid: string | null) =>
    (accountSid === null || req.params.AccountSid === accountSid) &&
    verifyTwilioSignature({ authToken, signature: req.signature, pathAndQuery: req.pathAndQuery, params: req.params });

  let ok: boolean;
  if (call?.providerAuthTokenEnc) ok = check(decryptSecret(call.providerAuthTokenEnc), null);
  else if (connection) ok = check(decryptSecret(connection.authTokenEnc), connection.accountSid);
  else return false;
  if (!ok) throw new AppError("FORBIDDEN", "Invalid X-Twilio-Signature.");
  return true;
}

type Rejection = { error: { code: string; message: string }; endReason: CallEndReason; twiml: string };

/** Why Routekit refuses a call before asking anyone (docs/decisions.md §7, §14, §17), or null to go on. */
function rejectionOf(
  account: EngineAccount,
  number: EngineNumber | null,
  guard: EngineGuard,
  params: EngineParams,
): Rejection | null {
  if (!number)
    return {
      error: {
        code: "NUMBER_NOT_REGISTERED",
        message: `The call was rejected: ${params.To ?? "the number called"} is not registered to this account.`,
      },
      endReason: "not-registered",
      twiml: REJECT_TWIML,
    };
  if (account.status !== "ACTIVE") {
    const suspended = account.status === "SUSPENDED";
    return {
      error: {
        code: suspended ? "ACCOUNT_SUSPENDED" : "PAYMENT_REQUIRED",
        message: `The call was rejected: the account is ${account.status}.`,
      },
      endReason: suspended ? "account-suspended" : "account-inactive",
      twiml: REJECT_TWIML,
    };
  }
  // docs/decisions.md §17: busy, so the caller hears a line in use rather than a number that does not exist.
  if (guard.spendCapReached)
    return {
      error: {
        code: "SPEND_LIMIT_REACHED",
        message: "The call was rejected: this month's usage cost has reached the monthly budget, and hardCap is on.",
      },
      endReason: "spend-limit-reached",
      twiml: REJECT_BUSY_TWIML,
    };
  if (guard.dailyCapReached)
    return {
      error: {
        code: "DAILY_CAP_REACHED",
        message: `The call was rejected: ${params.To ?? "the number"} has used up its dailyMinuteCap for today (UTC).`,
      },
      endReason: "daily-cap-reached",
      twiml: REJECT_BUSY_TWIML,
    };
  return null;
}

const CONCURRENCY_REJECTION: Rejection = {
  error: {
    code: "CONCURRENCY_LIMIT_REACHED",
    message: "The call was rejected: the account already had maxConcurrentCalls calls live.",
  },
  endReason: "concurrency-limit-reached",
  twiml: REJECT_BUSY_TWIML,
};

/** A call coming in: recorded once per SID and admitted, then the customer's backend decides it. */
async function answerInbound(
  account: EngineAccount,
  number: EngineNumber | null,
  guard: EngineGuard,
  params: EngineParams,
  receivedAt: Date,
  /** The call, when the lookup's statement already inserted it (the plain case: admitted, nothing to refuse). */
  inserted: EngineCall | null = null,
): Promise<string> {
  const rejection = rejectionOf(account, number, guard, params);
  // The plain case is a strict part of what is inserted below (engine-sql.ts, lookupAndInsert): a call it
  // made that this would refuse is a bug in one of the two, never a call to answer.
  if (inserted && (rejection || guard.countsLiveCalls))
    throw new AppError("INTERNAL", "The engine's lookup inserted a call that its rules refuse.");
  if (inserted) return askBackend(account, inserted, params, receivedAt);
  // rejectionOf refuses every call to a number not registered here, so past this block there is a number.
  if (rejection || !number) {
    const { error, endReason, twiml } = rejection ?? rejectionOf(account, null, guard, params)!;
    // docs/decisions.md §14: the rejected call ends there, and says why.
    // Without an onErrorUrl, account endpoints subscribed to call.error still receive it (docs/decisions.md §15).
    if (number) {
      const event = buildEvent("call.error", {
        callSid: params.CallSid!,
        direction: "inbound",
        from: params.From ?? "",
        to: params.To ?? "",
        phoneNumberId: number.id,
        error,
      });
      const url = number.onErrorUrl;
      await transactionWithEvents((_client, emit) => emit({ accountId: account.id, url, event }));
    }
    // Listed within the account's daily bound (call-log.ts).
    recordRejectedLater({
      callSid: params.CallSid!,
      accountId: account.id,
      phoneNumberId: number?.id ?? null,
      from: params.From ?? "",
      to: params.To ?? "",
      urls: number ?? { onCallStartUrl: "", onCallEndUrl: "", onErrorUrl: null },
      at: receivedAt,
      requestStatus: params.CallStatus ?? "ringing",
      error,
      endReason,
      twiml,
    });
    return twiml;
  }
  const recorded = await recordInboundCall(
    account,
    number,
    params,
    inboundInsertOf(params).status,
    guard.countsLiveCalls,
  );
  // Only a race with another account's call of the same SID gets here.
  if (!recorded.call) throw new AppError("NOT_FOUND", "Unknown call.");
  if (recorded.inserted && !recorded.admitted) return rejectUnadmitted(account, recorded.call, params, receivedAt);
  return askBackend(account, recorded.call, params, receivedAt);
}

/**
 * The account was at maxConcurrentCalls when this call's insert tried to admit it (docs/decisions.md §17):
 * the call is closed as rejected and its call.error queued in one transaction, before Twilio hears the reject.
 */
async function rejectUnadmitted(
  account: EngineAccount,
  call: EngineCall,
  params: EngineParams,
  receivedAt: Date,
): Promise<string> {
  const { error, endReason, twiml } = CONCURRENCY_REJECTION;
  const url = call.onErrorUrl;
  await transactionWithEvents(async (trx, emit) => {
    const closed = await rejectUnadmittedCall(trx, {
      callId: call.id,
      at: receivedAt,
      requestStatus: params.CallStatus ?? "ringing",
      endReason,
      error,
      twiml,
    });
    if (closed && url)
      await emit({
        accountId: account.id,
        url,
        event: buildEvent("call.error", eventData(call, { status: params.CallStatus, error })),
      });
  });
  return twiml;
}

/**
 * A completed call we have no record of, to one of the account's numbers: its
 * voice request never reached us, or is still on its way behind this callback.
 * The call happened and Twilio bills it, so it is recorded now and its usage
 * with it, never dropped. Only a request proven Twilio's gets here: an unsigned
 * one could bill a call that never was. Other statuses of unknown calls carry no usage.
 */
async function adoptCompletedCall(
  account: EngineAccount,
  number: EngineNumber | null,
  params: EngineParams,
): Promise<EngineCall | null> {
  if (!number || params.CallStatus !== "completed" || (params.Direction ?? "inbound") !== "inbound") return null;
  // It ended already: admitted or not, its close (next) is what counts, and it frees whatever it took.
  return (await recordInboundCall(account, number, params, "in-progress")).call;
}

/** An inbound call to `number`, once per SID, with the number's callback URLs as they are now. */
function recordInboundCall(
  account: EngineAccount,
  number: EngineNumber,
  params: EngineParams,
  status: string,
  counted?: boolean,
) {
  return insertInboundCallOnce({
    counted,
    callSid: params.CallSid!,
    accountId: account.id,
    phoneNumberId: number.id,
    fromNumber: params.From ?? "",
    toNumber: params.To ?? "",
    status,
    statusRank: Math.max(0, statusRank(status)),
    onCallStartUrl: number.onCallStartUrl,
    onCallEndUrl: number.onCallEndUrl,
    onErrorUrl: number.onErrorUrl,
    answerPolicy: number.answerPolicy ?? null,
  });
}

/** docs/decisions.md §21: a simulated call's caller, by default Twilio's magic test number. */
export const SIMULATED_FROM = "+15005550006";
/** How long a simulated call waits for its answer to reach the call log, so its timeline shows it. */
const SIMULATED_LOG_WAIT_MS = 5_000;

/**
 * docs/decisions.md §21: the inbound flow of a call to `number`, as if Twilio had asked, on the engine's
 * own path (askBackend: `call.started` with `data.test = true`, the answer checked, the answer timeout,
 * the retry, the fallbacks and the last resort as configured), for a call marked `test`. It skips what
 * only a real call meets: the signature (no Twilio request), the spend and daily caps and the
 * concurrency admission (a test call is never counted, insertSimulated). Once its answer is in the call
 * log the call ends at once as `completed` (endReason `completed`, 0 s, nothing billed, no usage), and
 * `call.ended` (`data.test = true`) is queued to the number's onCallEndUrl as for any call. Nothing is
 * ever sent to Twilio. Answers the call's SID and the TwiML Twilio would have received.
 */
export async function simulateInboundCall(opts: {
  account: EngineAccount;
  number: EngineNumber & { phoneNumber: string };
  from?: string;
}): Promise<{ callSid: string; twiml: string }> {
  const { account, number } = opts;
  // The route requires a paid account; an account closed or suspended since is refused as the engine would.
  if (account.status !== "ACTIVE")
    throw new AppError(account.status === "SUSPENDED" ? "ACCOUNT_SUSPENDED" : "PAYMENT_REQUIRED");
  const receivedAt = new Date();
  const params = Object.create(null) as EngineParams;
  params.CallSid = `CA${randomBytes(16).toString("hex")}`;
  params.From = opts.from ?? SIMULATED_FROM;
  params.To = number.phoneNumber;
  params.CallStatus = "ringing";
  params.Direction = "inbound";
  const recorded = await insertInboundCallOnce({
    test: true,
    callSid: params.CallSid,
    accountId: account.id,
    phoneNumberId: number.id,
    fromNumber: params.From,
    toNumber: params.To,
    status: "ringing",
    statusRank: Math.max(0, statusRank("ringing")),
    onCallStartUrl: number.onCallStartUrl,
    onCallEndUrl: number.onCallEndUrl,
    onErrorUrl: number.onErrorUrl,
    answerPolicy: number.answerPolicy ?? null,
  });
  const call = recorded.call;
  if (!call) throw new AppError("INTERNAL", "The simulated call could not be recorded.");
  const logged = whenAnswerRecorded(call.id, SIMULATED_LOG_WAIT_MS);
  const twiml = await askBackend(account, call, params, receivedAt, true);
  await logged;
  await finishCall({
    account,
    call,
    status: "completed",
    durationSeconds: 0,
    answeredBy: null,
    endedAt: new Date(),
    reconciled: false,
    test: true,
  });
  return { callSid: call.callSid, twiml };
}

/** A call we already know: an outbound call answered, or Twilio retrying a voice request. */
async function answerKnownCall(
  account: EngineAccount,
  call: EngineCall,
  params: EngineParams,
  receivedAt: Date,
): Promise<string> {
  if (account.status !== "ACTIVE") return REJECT_TWIML;
  // A voice request overtaken by its own call's end: the call is over, there is nothing to ask.
  if (call.statusRank >= TERMINAL_RANK) return REJECT_TWIML;
  const answeredBy = params.AnsweredBy ?? call.answeredBy;
  await advanceCall({
    callId: call.id,
    status: "in-progress",
    rank: statusRank("in-progress"),
    answeredBy,
    answered: true,
    request: null,
  });
  return askBackend(account, { ...call, answeredBy }, params, receivedAt);
}

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
async function askBackend(
  account: EngineAccount,
  call: EngineCall,
  params: EngineParams,
  receivedAt: Date,
  /** A simulated call (docs/decisions.md §21): its events carry `data.test = true`. */
  test = false,
): Promise<string> {
  const config = env();
  const policy = (call.answerPolicy ?? {}) as AnswerPolicy;
  const marked = test ? { test: true as const } : {};
  // The budget runs from the voice request's arrival (never from further back than a second: a replayed time).
  const deadline = Math.max(receivedAt.getTime(), Date.now() - 1000) + config.voiceAnswerBudgetMs - ANSWER_MARGIN_MS;
  const event = buildEvent("call.started", eventData(call, { status: params.CallStatus, ...marked }));
  const payload = JSON.stringify(event);
  const secrets = signingSecrets(account);
  const attempts: StartAttempt[] = [];

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
      const res = await postCallStarted({ url, event, body, secrets, timeoutMs: Math.max(1, Math.floor(timeoutMs)) });
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
  let result = await ask("primary", call.onCallStartUrl, payload, primaryEnd - primaryStart);
  const primaryFailure = result.ok ? null : result.failure;
  if (!result.ok && result.retryable && primaryEnd - Date.now() >= RETRY_MIN_MS) {
    result = await ask("retry", call.onCallStartUrl, payload, primaryEnd - Date.now());
  }

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

  recordAnswerLater({
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
  });

  const url = call.onErrorUrl;
  // Without an onErrorUrl, account endpoints subscribed to call.error still receive it (docs/decisions.md §15).
  if (primaryFailure) {
    // After the answer, as the call log: a stored fallback goes back to Twilio at once (docs/decisions.md §12),
    // not after a transaction. Queued durably a moment later, tried again if the database blinks.
    const event = buildEvent(
      "call.error",
      eventData(call, {
        status: params.CallStatus,
        error: primaryFailure,
        takenOverBy: decision.takenOverBy,
        ...marked,
      }),
    );
    afterAnswer("call.error", call.callSid, () =>
      transactionWithEvents((_client, emit) => emit({ accountId: account.id, url, event })),
    );
  }
  return decision.twiml;
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

/**
 * A status callback. Progress only moves forward; the final status closes the
 * call exactly once (finish-call.ts).
 */
async function applyStatus(
  account: EngineAccount,
  call: EngineCall,
  params: EngineParams,
  receivedAt: Date,
  verified: boolean,
): Promise<void> {
  // Stored as shown: Twilio's `answered` is the call in progress.
  const status = shownCallStatus(callStatusOf(params));
  const rank = statusRank(status);
  if (rank < 0) return;
  const answeredBy = params.AnsweredBy ?? call.answeredBy;
  const sequenceNumber = /^\d{1,9}$/.test(params.SequenceNumber ?? "") ? Number(params.SequenceNumber) : null;

  if (!isTerminal(status)) {
    const progress = status === "ringing" ? "call.ringing" : status === "in-progress" ? "call.answered" : null;
    await advanceCall({
      callId: call.id,
      status,
      rank,
      answeredBy,
      answered: status === "in-progress",
      request: { kind: "status", sequenceNumber, sentStatus: params.CallStatus },
      // docs/decisions.md §15: to subscribed endpoints only; never to the number's URLs.
      ...(progress && {
        progressEvent: {
          accountId: account.id,
          reportedAs: progress === "call.ringing" ? ["ringing"] : ["in-progress", "answered"],
          event: buildEvent(
            progress,
            eventData(call, { status: params.CallStatus ?? status, answeredBy: answeredBy ?? undefined }),
          ),
        },
      }),
    });
    return;
  }
  const durationSeconds = status === "completed" ? Number.parseInt(params.CallDuration ?? "0", 10) || 0 : 0;
  await finishCall({
    account,
    call,
    status,
    durationSeconds,
    answeredBy,
    endedAt: receivedAt,
    reconciled: false,
    sequenceNumber,
    unverified: !verified,
    ...carrierCodesOf(params),
  });
}
