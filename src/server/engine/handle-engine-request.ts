import { AppError } from "../errors/app-error";
import { decryptSecret } from "../crypto/secret-box";
import { CallbackRequestError } from "../callbacks/callback-http-client";
import { transactionWithEvents, type Emit } from "../events/enqueue-event";
import { buildEvent, type EventData } from "../events/event-envelope";
import { postCallStarted } from "../events/post-call-started";
import { signingSecrets } from "../events/webhook-secrets";
import { logger } from "../logger";
import { billingPlan } from "../services/billing/billing-plan";
import { billingPeriodKey, costBreakdown, dayPeriod, usagePeriod } from "../services/usage/billed-minutes";
import { enqueueMeterEvent } from "../services/billing/report-meter-event";
import { env } from "../env";
import { isStatusCallback, isTerminal, statusRank, TERMINAL_RANK } from "./call-status";
import { addToRunningTotals, advanceCall, bindCallSid, closeCall, insertInboundCall, insertUsageRecord, lookupEngineRequest, type EngineAccount, type EngineCall, type EngineNumber } from "./engine-sql";
import { REJECT_TWIML, fallbackTwiml, interpretStartAnswer } from "./start-answer";
import { verifyTwilioSignature } from "./verify-twilio-signature";

export const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

export type EngineRequest = {
  routingToken: string;
  /** Path and query as received; the signed URL is PUBLIC_BASE_URL + this. */
  pathAndQuery: string;
  /** Our own call id, on outbound calls' URLs. */
  callId: string | null;
  params: Record<string, string>;
  signature: string | null;
};

/**
 * Twilio's voice requests and status callbacks for one account (decisions §7).
 * Answers TwiML; the caller turns AppErrors into HTTP errors.
 */
export async function handleEngineRequest(req: EngineRequest): Promise<string> {
  const callSid = req.params.CallSid;
  const found = await lookupEngineRequest({ routingToken: req.routingToken, to: req.params.To ?? "", callSid: callSid ?? "", callId: req.callId });
  if (!found) throw new AppError("NOT_FOUND", "Unknown engine URL.");
  if (!callSid) throw new AppError("VALIDATION_FAILED", "Missing CallSid.", { details: [{ path: "CallSid", message: "is required" }] });
  const { account, number, call } = found;
  if ((call && call.accountId !== account.id) || (req.callId && !call)) throw new AppError("NOT_FOUND", "Unknown call.");

  // Where we hold the provider's token (outbound calls, while they live), the request must be Twilio's.
  if (call?.providerAuthTokenEnc) {
    const ok = verifyTwilioSignature({ authToken: decryptSecret(call.providerAuthTokenEnc), signature: req.signature, pathAndQuery: req.pathAndQuery, params: req.params });
    if (!ok) throw new AppError("INVALID_SIGNATURE", "Invalid X-Twilio-Signature.");
  }
  let bound = call;
  if (call && call.callSid !== callSid && call.callSid.startsWith("pending:")) {
    await bindCallSid(call.id, callSid);
    bound = { ...call, callSid };
  }

  if (isStatusCallback(req.params)) {
    const known = bound ?? (await adoptCompletedCall(account, number, req.params));
    if (known) await applyStatus(account, known, req.params);
    return EMPTY_TWIML;
  }
  if (bound) return answerKnownCall(account, bound, req.params);
  return answerInbound(account, number, req.params);
}

function eventData(call: EngineCall, extra: Partial<EventData> = {}): EventData {
  return {
    callSid: call.callSid,
    direction: call.direction === "outbound" ? "outbound" : "inbound",
    from: call.fromNumber,
    to: call.toNumber,
    phoneNumberId: call.phoneNumberId,
    metadata: (call.metadata as Record<string, unknown> | null) ?? undefined,
    answeredBy: call.answeredBy ?? undefined,
    ...extra,
  };
}

/** A call coming in: recorded once per SID, then the customer's backend decides it. */
async function answerInbound(account: EngineAccount, number: EngineNumber | null, params: Record<string, string>): Promise<string> {
  if (!number || account.status !== "ACTIVE") {
    if (number?.onErrorUrl) {
      const code = account.status === "SUSPENDED" ? "ACCOUNT_SUSPENDED" : "PAYMENT_REQUIRED";
      const event = buildEvent("call.error", {
        callSid: params.CallSid!,
        direction: "inbound",
        from: params.From ?? "",
        to: params.To ?? "",
        phoneNumberId: number.id,
        error: { code, message: `The call was rejected: the account is ${account.status}.` },
      });
      const url = number.onErrorUrl;
      await transactionWithEvents((_client, emit) => emit({ accountId: account.id, url, event }));
    }
    return REJECT_TWIML;
  }
  const call = await recordInboundCall(account, number, params, params.CallStatus ?? "ringing");
  // Only a race with another account's call of the same SID gets here.
  if (!call) throw new AppError("NOT_FOUND", "Unknown call.");
  return askBackend(account, call, params);
}

/**
 * A completed call we have no record of, to one of the account's numbers: its
 * voice request never reached us, or is still on its way behind this callback.
 * The call happened and Twilio bills it, so it is recorded now and its usage
 * with it, never dropped. Other statuses of unknown calls carry no usage.
 */
async function adoptCompletedCall(account: EngineAccount, number: EngineNumber | null, params: Record<string, string>): Promise<EngineCall | null> {
  if (!number || params.CallStatus !== "completed" || (params.Direction ?? "inbound") !== "inbound") return null;
  return recordInboundCall(account, number, params, "in-progress");
}

/** An inbound call to `number`, once per SID, with the number's callback URLs as they are now. */
function recordInboundCall(account: EngineAccount, number: EngineNumber, params: Record<string, string>, status: string): Promise<EngineCall | null> {
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
async function answerKnownCall(account: EngineAccount, call: EngineCall, params: Record<string, string>): Promise<string> {
  if (account.status !== "ACTIVE") return REJECT_TWIML;
  // A voice request overtaken by its own call's end: the call is over, there is nothing to ask.
  if (call.statusRank >= TERMINAL_RANK) return REJECT_TWIML;
  const answeredBy = params.AnsweredBy ?? call.answeredBy;
  await advanceCall({ callId: call.id, status: "in-progress", rank: statusRank("in-progress"), answeredBy, answered: true });
  return askBackend(account, { ...call, answeredBy }, params);
}

/** `call.started` to the customer's backend: its answer is the call's TwiML, or the fallback and a `call.error`. */
async function askBackend(account: EngineAccount, call: EngineCall, params: Record<string, string>): Promise<string> {
  const event = buildEvent("call.started", eventData(call, { status: params.CallStatus }));
  let failure: { code: string; message: string };
  try {
    const res = await postCallStarted({ url: call.onCallStartUrl, event, secrets: signingSecrets(account) });
    const answer = interpretStartAnswer({ status: res.status, contentType: res.headers["content-type"] ?? null, body: res.body });
    if (answer.ok) return answer.twiml;
    failure = { code: answer.code, message: answer.message };
  } catch (err) {
    failure =
      err instanceof CallbackRequestError
        ? { code: err.kind === "timeout" ? "START_CALLBACK_TIMEOUT" : "START_CALLBACK_UNREACHABLE", message: `onCallStartUrl: ${err.message}` }
        : { code: "START_CALLBACK_UNREACHABLE", message: "onCallStartUrl could not be reached." };
  }

  const url = call.onErrorUrl;
  if (url) {
    await transactionWithEvents((_client, emit) =>
      emit({ accountId: account.id, url, event: buildEvent("call.error", eventData(call, { status: params.CallStatus, error: failure })) }),
    ).catch((err: unknown) => logger().error({ err, callSid: call.callSid }, "could not record call.error"));
  }
  return fallbackTwiml();
}

/**
 * A status callback. Progress only moves forward; the final status closes the
 * call exactly once, and in that same transaction writes the usage record,
 * the running totals and the events.
 */
async function applyStatus(account: EngineAccount, call: EngineCall, params: Record<string, string>): Promise<void> {
  const status = params.CallStatus ?? "";
  const rank = statusRank(status);
  if (rank < 0) return;
  const answeredBy = params.AnsweredBy ?? call.answeredBy;

  if (!isTerminal(status)) {
    await advanceCall({ callId: call.id, status, rank, answeredBy, answered: status === "in-progress" });
    return;
  }

  const durationSeconds = status === "completed" ? Math.max(0, Number.parseInt(params.CallDuration ?? "0", 10) || 0) : 0;
  const endedAt = new Date();
  const plan = await billingPlan();
  await transactionWithEvents(async (client, emit) => {
    const closedNow = await closeCall(client, { callId: call.id, status, rank: TERMINAL_RANK, endedAt, durationSeconds, answeredBy });
    if (!closedNow) return; // a duplicate or a late callback: already closed

    const closed = { ...call, answeredBy };
    const breakdown = status === "completed" ? costBreakdown({ durationSeconds, perMinuteRate: plan.perMinuteRate }) : null;
    let usage: Partial<EventData> = {};
    if (breakdown) {
      await insertUsageRecord(client, { call: closed, breakdown, at: endedAt });
      // Stripe mode: the minutes reach Stripe's meter from the durable queue, once per call SID.
      if (env().billingMode === "stripe" && account.stripeCustomerId && breakdown.billedMinutes > 0) {
        await enqueueMeterEvent(client, { stripeCustomerId: account.stripeCustomerId, callSid: call.callSid, minutes: breakdown.billedMinutes, at: endedAt });
      }
      usage = { durationSeconds, billedMinutes: breakdown.billedMinutes, costBreakdown: breakdown };
    }
    await emit({ accountId: account.id, url: call.onCallEndUrl, event: buildEvent("call.ended", eventData(closed, { status, ...usage })) });
    if (status === "failed" && call.onErrorUrl) {
      await emitFailure(emit, account.id, call.onErrorUrl, closed);
    }
    // Last before the commit: all of the account's calls update these rows.
    if (breakdown) {
      await addToRunningTotals(client, { accountId: account.id, periods: usagePeriods(account, endedAt), billedMinutes: breakdown.billedMinutes, totalCost: breakdown.totalCost });
    }
  });
}

/**
 * The running totals a usage record counts in: its month, its day, all time,
 * and Stripe's billing period when we know it. Summaries and the daily chart
 * read these and never scan history.
 */
function usagePeriods(account: EngineAccount, at: Date): string[] {
  const periods = [usagePeriod(at), dayPeriod(at), "all"];
  const { currentPeriodStart: start, currentPeriodEnd: end } = account;
  if (start && end && at >= start && at < end) periods.push(billingPeriodKey(start));
  return periods;
}

function emitFailure(emit: Emit, accountId: string, url: string, call: EngineCall) {
  const event = buildEvent("call.error", eventData(call, { status: "failed", error: { code: "CALL_FAILED", message: "Twilio reported the call as failed." } }));
  return emit({ accountId, url, event });
}
