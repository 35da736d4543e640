import { AppError } from "../errors/app-error";
import { isTransientError } from "../errors/to-error-response";
import { decryptSecret } from "../crypto/secret-box";
import { logger } from "../logger";
import { transactionWithEvents } from "../webhooks/enqueue-event";
import { buildEvent } from "../webhooks/event-envelope";
import { isStatusCallback, isTerminal, statusRank, TERMINAL_RANK } from "../services/calls/call-status";
import { callStatusOf, carrierCodesOf, type EngineParams } from "./engine-params";
import { shownCallStatus, type CallEndReason } from "../../shared/schemas/enums";
import { advanceCall, bindCallSid } from "./sql/advance-call";
import { insertInboundCallOnce, rejectUnadmittedCall } from "../services/calls/insert-call";
import { lookupEngineRequest, type EngineGuard, type EngineLookup } from "./sql/lookup";
import type { EngineAccount, EngineCall, EngineNumber } from "../services/calls/call-row";
import { eventData, finishCall } from "../services/calls/finish-call";
import { REJECT_BUSY_TWIML, REJECT_TWIML } from "./start-answer";
import { verifyTwilioSignature } from "./verify-twilio-signature";
import { recordRejectedLater } from "./rejected-calls";
import { afterAnswer } from "./write-later";
import { AbandonedVoiceRequest, askBackend, type VoiceGate } from "./ask-backend";

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
export async function handleEngineRequest(
  req: EngineRequest,
  /** A voice request's gate (answer-voice-request.ts): set once it is decided, so an outage cannot take it over. */
  gate?: VoiceGate,
): Promise<string> {
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
  if (bound) return answerKnownCall(account, bound, req.params, receivedAt, gate);
  return answerInbound(account, number, found.guard, req.params, receivedAt, found.inserted, gate);
}

/** The row a new inbound call's voice request makes: the status it reports (ringing, as Twilio shows it). */
export function inboundInsertOf(params: EngineParams) {
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

/**
 * Why Routekit refuses a call before asking anyone (docs/decisions.md §7, §14, §17), or null to go on: in
 * §14's order, the account's standing, then the number, then the limits of §17.
 */
function rejectionOf(
  account: EngineAccount,
  number: EngineNumber | null,
  guard: EngineGuard,
  params: EngineParams,
): Rejection | null {
  // docs/decisions.md §14: the account's standing decides first, whatever the number: it is the cause the
  // customer can act on (an unpaid account dialled on a number not yet registered is still unpaid).
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
  if (!number)
    return {
      error: {
        code: "NUMBER_NOT_REGISTERED",
        message: `The call was rejected: ${params.To ?? "the number called"} is not registered to this account.`,
      },
      endReason: "not-registered",
      twiml: REJECT_TWIML,
    };
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
  gate?: VoiceGate,
): Promise<string> {
  const rejection = rejectionOf(account, number, guard, params);
  // A refusal is decided here: what the database could not take after this is written later, not replaced by
  // the outage path's answer (which knows nothing of limits).
  if (rejection && gate) {
    // The outage path answered while this was still reading: it decided the call, nothing is written here.
    if (gate.abandoned) throw new AbandonedVoiceRequest();
    gate.decided = true;
  }
  // The plain case is a strict part of what is inserted below (sql/lookup.ts, lookupAndInsert): a call it
  // made that this would refuse is a bug in one of the two, never a call to answer.
  if (inserted && (rejection || guard.countsLiveCalls))
    throw new AppError("INTERNAL", "The engine's lookup inserted a call that its rules refuse.");
  if (inserted)
    return askBackend(account, inserted, params, receivedAt, { gate, listen: number?.listen, shadow: number?.shadow });
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
      await writeNowOrLater("call.error", params.CallSid!, () =>
        transactionWithEvents((_client, emit) => emit({ accountId: account.id, url, event })),
      );
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
  if (recorded.inserted && !recorded.admitted) {
    if (gate?.abandoned) throw new AbandonedVoiceRequest();
    if (gate) gate.decided = true;
    const call = recorded.call;
    await writeNowOrLater("concurrency rejection", call.callSid, () =>
      rejectUnadmitted(account, call, params, receivedAt),
    );
    return CONCURRENCY_REJECTION.twiml;
  }
  return askBackend(account, recorded.call, params, receivedAt, { gate, listen: number.listen, shadow: number.shadow });
}

/**
 * A write that belongs with a refusal already decided: done before Twilio hears it, or, when the database
 * blinks just then, tried again after the answer (call-log.ts) rather than answering Twilio 503.
 */
async function writeNowOrLater(what: string, callSid: string, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    if (!isTransientError(err)) throw err;
    logger().warn({ callSid, what }, "database unavailable: the refusal's write is retried after the answer");
    afterAnswer(what, callSid, write);
  }
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
): Promise<void> {
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

/** A call we already know: an outbound call answered, or Twilio retrying a voice request. */
async function answerKnownCall(
  account: EngineAccount,
  call: EngineCall,
  params: EngineParams,
  receivedAt: Date,
  gate?: VoiceGate,
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
  return askBackend(account, { ...call, answeredBy }, params, receivedAt, { gate });
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
