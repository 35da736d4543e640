import { AppError } from "../errors/app-error";
import { decryptSecret } from "../crypto/secret-box";
import { CallbackRequestError } from "../webhooks/http/callback-http-client";
import { transactionWithEvents } from "../webhooks/enqueue-event";
import { buildEvent } from "../webhooks/event-envelope";
import { postCallStarted } from "../webhooks/post-call-started";
import { signingSecrets } from "../webhooks/webhook-secrets";
import { logger } from "../logger";
import { isStatusCallback, isTerminal, statusRank, TERMINAL_RANK } from "./call-status";
import { callStatusOf, type EngineParams } from "./engine-params";
import { shownCallStatus } from "../schemas/enums";
import {
  advanceCall,
  bindCallSid,
  insertInboundCall,
  lookupEngineRequest,
  type EngineAccount,
  type EngineCall,
  type EngineLookup,
  type EngineNumber,
} from "./engine-sql";
import { eventData, finishCall } from "../services/calls/finish-call";
import { REJECT_TWIML, fallbackTwiml, interpretStartAnswer } from "./start-answer";
import { verifyTwilioSignature } from "./verify-twilio-signature";
import { recordAnswerLater, recordRejectedLater, type StartAttempt } from "./call-log";

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
  const found = await lookupEngineRequest({
    routingToken: req.routingToken,
    to: req.params.To ?? "",
    callSid,
    callId: req.callId,
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

  if (isStatusCallback(req.params)) {
    const known = bound ?? (verified ? await adoptCompletedCall(account, number, req.params) : null);
    if (known) await applyStatus(account, known, req.params, req.receivedAt ?? new Date(), verified);
    return EMPTY_TWIML;
  }
  const receivedAt = req.receivedAt ?? new Date();
  if (bound) return answerKnownCall(account, bound, req.params, receivedAt);
  return answerInbound(account, number, req.params, receivedAt);
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

/** A call coming in: recorded once per SID, then the customer's backend decides it. */
async function answerInbound(
  account: EngineAccount,
  number: EngineNumber | null,
  params: EngineParams,
  receivedAt: Date,
): Promise<string> {
  if (!number || account.status !== "ACTIVE") {
    const error = !number
      ? {
          code: "NUMBER_NOT_REGISTERED",
          message: `The call was rejected: ${params.To ?? "the number called"} is not registered to this account.`,
        }
      : {
          code: account.status === "SUSPENDED" ? "ACCOUNT_SUSPENDED" : "PAYMENT_REQUIRED",
          message: `The call was rejected: the account is ${account.status}.`,
        };
    if (number?.onErrorUrl) {
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
      twiml: REJECT_TWIML,
    });
    return REJECT_TWIML;
  }
  const call = await recordInboundCall(account, number, params, shownCallStatus(callStatusOf(params)));
  // Only a race with another account's call of the same SID gets here.
  if (!call) throw new AppError("NOT_FOUND", "Unknown call.");
  return askBackend(account, call, params, receivedAt);
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
  return recordInboundCall(account, number, params, "in-progress");
}

/** An inbound call to `number`, once per SID, with the number's callback URLs as they are now. */
function recordInboundCall(
  account: EngineAccount,
  number: EngineNumber,
  params: EngineParams,
  status: string,
): Promise<EngineCall | null> {
  return insertInboundCall({
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
  });
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

/**
 * `call.started` to the customer's backend: its answer is the call's TwiML, or the fallback and a `call.error`.
 * The attempt and how its answer was used go to the call log once the TwiML is on its way.
 */
async function askBackend(
  account: EngineAccount,
  call: EngineCall,
  params: EngineParams,
  receivedAt: Date,
): Promise<string> {
  const event = buildEvent("call.started", eventData(call, { status: params.CallStatus }));
  const started = new Date();
  const payload = JSON.stringify(event);
  const attempt: StartAttempt = {
    url: call.onCallStartUrl,
    event,
    payload,
    at: started,
    latencyMs: 0,
    statusCode: null,
    responseBody: null,
    error: null,
  };
  const log = (
    answer: "xml" | "json-twiml" | "json-actions" | "fallback",
    twiml: string,
    error: { code: string; message: string } | null,
  ) =>
    recordAnswerLater({
      callId: call.id,
      accountId: account.id,
      callSid: call.callSid,
      requestAt: receivedAt,
      requestStatus: params.CallStatus ?? "ringing",
      answer,
      error,
      twiml,
      attempt: { ...attempt, latencyMs: Date.now() - started.getTime() },
    });

  let failure: { code: string; message: string };
  try {
    const res = await postCallStarted({
      url: call.onCallStartUrl,
      event,
      body: payload,
      secrets: signingSecrets(account),
    });
    attempt.statusCode = res.status;
    attempt.responseBody = res.body;
    const answer = interpretStartAnswer({
      status: res.status,
      contentType: res.headers["content-type"] ?? null,
      body: res.body,
    });
    if (answer.ok) {
      log(answer.form, answer.twiml, null);
      return answer.twiml;
    }
    failure = { code: answer.code, message: answer.message };
  } catch (err) {
    failure =
      err instanceof CallbackRequestError
        ? {
            code: err.kind === "timeout" ? "START_CALLBACK_TIMEOUT" : "START_CALLBACK_UNREACHABLE",
            message: `onCallStartUrl: ${err.message}`,
          }
        : { code: "START_CALLBACK_UNREACHABLE", message: "onCallStartUrl could not be reached." };
    attempt.error = failure.message;
  }
  log("fallback", fallbackTwiml(), failure);

  const url = call.onErrorUrl;
  if (url) {
    await transactionWithEvents((_client, emit) =>
      emit({
        accountId: account.id,
        url,
        event: buildEvent("call.error", eventData(call, { status: params.CallStatus, error: failure })),
      }),
    ).catch((err: unknown) => logger().error({ err, callSid: call.callSid }, "could not record call.error"));
  }
  return fallbackTwiml();
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
    await advanceCall({
      callId: call.id,
      status,
      rank,
      answeredBy,
      answered: status === "in-progress",
      request: { kind: "status", sequenceNumber, sentStatus: params.CallStatus },
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
  });
}
