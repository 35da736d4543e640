import type { Call, Prisma } from "@/generated/prisma/client";
import { AppError } from "../errors/app-error";
import { db } from "../db/client";
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

const accountColumns = {
  id: true,
  status: true,
  stripeCustomerId: true,
  currentPeriodStart: true,
  currentPeriodEnd: true,
  webhookSecretEnc: true,
  previousWebhookSecretEnc: true,
  previousWebhookSecretExpiresAt: true,
} satisfies Prisma.AccountSelect;
type EngineAccount = Prisma.AccountGetPayload<{ select: typeof accountColumns }>;

/**
 * Twilio's voice requests and status callbacks for one account (decisions §7).
 * Answers TwiML; the caller turns AppErrors into HTTP errors.
 */
export async function handleEngineRequest(req: EngineRequest): Promise<string> {
  const account = await db().account.findUnique({ where: { routingToken: req.routingToken }, select: accountColumns });
  if (!account) throw new AppError("NOT_FOUND", "Unknown engine URL.");
  const callSid = req.params.CallSid;
  if (!callSid) throw new AppError("VALIDATION_FAILED", "Missing CallSid.", { details: [{ path: "CallSid", message: "is required" }] });

  const call = req.callId
    ? await db().call.findFirst({ where: { id: req.callId, accountId: account.id } })
    : await db().call.findUnique({ where: { callSid } });
  if ((call && call.accountId !== account.id) || (req.callId && !call)) throw new AppError("NOT_FOUND", "Unknown call.");

  // Where we hold the provider's token (outbound calls, while they live), the request must be Twilio's.
  if (call?.providerAuthTokenEnc) {
    const ok = verifyTwilioSignature({ authToken: decryptSecret(call.providerAuthTokenEnc), signature: req.signature, pathAndQuery: req.pathAndQuery, params: req.params });
    if (!ok) throw new AppError("INVALID_SIGNATURE", "Invalid X-Twilio-Signature.");
  }
  const bound = call && call.callSid !== callSid && call.callSid.startsWith("pending:") ? await bindCallSid(call, callSid) : call;

  if (isStatusCallback(req.params)) {
    if (bound) await applyStatus(account, bound, req.params);
    return EMPTY_TWIML;
  }
  return answerCall(account, bound, req.params);
}

/** An outbound call's SID, learnt from Twilio's first callback if it beats `calls.create` returning. */
async function bindCallSid(call: Call, callSid: string): Promise<Call> {
  await db().call.updateMany({ where: { id: call.id, callSid: { startsWith: "pending:" } }, data: { callSid } });
  return { ...call, callSid };
}

function eventData(call: Call, extra: Partial<EventData> = {}): EventData {
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

/** A voice request: the call was answered (outbound) or is coming in (inbound). Our answer decides it. */
async function answerCall(account: EngineAccount, existing: Call | null, params: Record<string, string>): Promise<string> {
  let call = existing;
  if (!call) {
    const number = await db().phoneNumber.findFirst({ where: { accountId: account.id, phoneNumber: params.To ?? "", isActive: true } });
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
        await transactionWithEvents((_tx, emit) => emit({ accountId: account.id, url, event }));
      }
      return REJECT_TWIML;
    }
    // Twilio retries a voice request it got no answer to: the same SID is the same call.
    call = await db().call.upsert({
      where: { callSid: params.CallSid! },
      create: {
        callSid: params.CallSid!,
        accountId: account.id,
        phoneNumberId: number.id,
        direction: "inbound",
        fromNumber: params.From ?? "",
        toNumber: params.To ?? "",
        status: params.CallStatus ?? "ringing",
        statusRank: Math.max(0, statusRank(params.CallStatus ?? "ringing")),
        onCallStartUrl: number.onCallStartUrl,
        onCallEndUrl: number.onCallEndUrl,
        onErrorUrl: number.onErrorUrl,
      },
      update: {},
    });
  } else {
    if (account.status !== "ACTIVE") return REJECT_TWIML;
    const answeredBy = params.AnsweredBy ?? call.answeredBy;
    await db().call.updateMany({
      where: { id: call.id, statusRank: { lt: statusRank("in-progress") } },
      data: { status: "in-progress", statusRank: statusRank("in-progress"), answeredAt: new Date(), answeredBy },
    });
    call = { ...call, answeredBy };
  }

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

  const failed = call;
  const url = failed.onErrorUrl;
  if (url) {
    await transactionWithEvents((_tx, emit) =>
      emit({ accountId: account.id, url, event: buildEvent("call.error", eventData(failed, { status: params.CallStatus, error: failure })) }),
    ).catch((err: unknown) => logger().error({ err, callSid: failed.callSid }, "could not record call.error"));
  }
  return fallbackTwiml();
}

/**
 * A status callback. Progress only moves forward; the final status closes the
 * call exactly once, and in that same transaction writes the usage record,
 * the running totals and the events.
 */
async function applyStatus(account: EngineAccount, call: Call, params: Record<string, string>): Promise<void> {
  const status = params.CallStatus ?? "";
  const rank = statusRank(status);
  if (rank < 0) return;
  const answeredBy = params.AnsweredBy ?? call.answeredBy;

  if (!isTerminal(status)) {
    await db().call.updateMany({
      where: { id: call.id, statusRank: { lt: rank } },
      data: { status, statusRank: rank, answeredBy, ...(status === "in-progress" && { answeredAt: new Date() }) },
    });
    return;
  }

  const durationSeconds = status === "completed" ? Math.max(0, Number.parseInt(params.CallDuration ?? "0", 10) || 0) : 0;
  const endedAt = new Date();
  const plan = await billingPlan();
  await transactionWithEvents(async (tx, emit) => {
    const { count } = await tx.call.updateMany({
      where: { id: call.id, statusRank: { lt: TERMINAL_RANK } },
      // The provider token has served its purpose: it is not kept past the call.
      data: { status, statusRank: TERMINAL_RANK, endedAt, durationSeconds, answeredBy, providerAuthTokenEnc: null },
    });
    if (count === 0) return; // a duplicate or a late callback: already closed

    const closed = { ...call, status, answeredBy, durationSeconds };
    let usage: Partial<EventData> = {};
    if (status === "completed") {
      const breakdown = costBreakdown({ durationSeconds, perMinuteRate: plan.perMinuteRate });
      await recordUsage(tx, account, closed, breakdown, endedAt);
      usage = { durationSeconds, billedMinutes: breakdown.billedMinutes, costBreakdown: breakdown };
    }
    await emit({ accountId: account.id, url: call.onCallEndUrl, event: buildEvent("call.ended", eventData(closed, { status, ...usage })) });
    if (status === "failed" && call.onErrorUrl) {
      await emitFailure(emit, account.id, call.onErrorUrl, closed);
    }
  });
}

function emitFailure(emit: Emit, accountId: string, url: string, call: Call) {
  const event = buildEvent("call.error", eventData(call, { status: "failed", error: { code: "CALL_FAILED", message: "Twilio reported the call as failed." } }));
  return emit({ accountId, url, event });
}

async function recordUsage(tx: Prisma.TransactionClient, account: EngineAccount, call: Call, breakdown: ReturnType<typeof costBreakdown>, at: Date): Promise<void> {
  await tx.usageRecord.create({
    data: {
      accountId: call.accountId,
      callSid: call.callSid,
      phoneNumberId: call.phoneNumberId,
      direction: call.direction,
      callerNumber: call.fromNumber,
      calledNumber: call.toNumber,
      durationSeconds: breakdown.durationSeconds,
      billedMinutes: breakdown.billedMinutes,
      totalCost: breakdown.totalCost,
      costBreakdown: breakdown,
      createdAt: at,
    },
  });
  // Running totals for the month, the day, all time and Stripe's billing period
  // when we know it: summaries and the daily chart never scan history.
  const periods = [usagePeriod(at), dayPeriod(at), "all"];
  const inBillingPeriod = account.currentPeriodStart && account.currentPeriodEnd && at >= account.currentPeriodStart && at < account.currentPeriodEnd;
  if (inBillingPeriod) periods.push(billingPeriodKey(account.currentPeriodStart!));
  for (const period of periods) {
    await tx.$executeRaw`
      INSERT INTO "UsageTotal" ("accountId", "period", "calls", "billedMinutes", "totalCost", "updatedAt")
      VALUES (${call.accountId}, ${period}, 1, ${breakdown.billedMinutes}, ${breakdown.totalCost}::numeric, now())
      ON CONFLICT ("accountId", "period") DO UPDATE SET
        "calls" = "UsageTotal"."calls" + 1,
        "billedMinutes" = "UsageTotal"."billedMinutes" + EXCLUDED."billedMinutes",
        "totalCost" = "UsageTotal"."totalCost" + EXCLUDED."totalCost",
        "updatedAt" = now()`;
  }
  // Stripe mode: the minutes reach Stripe's meter from the durable queue, once per call SID.
  if (env().billingMode === "stripe" && account.stripeCustomerId && breakdown.billedMinutes > 0) {
    await enqueueMeterEvent(tx, { stripeCustomerId: account.stripeCustomerId, callSid: call.callSid, minutes: breakdown.billedMinutes, at });
  }
}
