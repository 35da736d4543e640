import { transactionWithEvents, type Emit } from "../events/enqueue-event";
import { buildEvent, type EventData } from "../events/event-envelope";
import { billingPlan } from "../services/billing/billing-plan";
import { billing } from "../services/billing/billing-strategy";
import { billingPeriodKey, costBreakdown, dayPeriod, usagePeriod } from "../services/usage/billed-minutes";
import { TERMINAL_RANK, type TerminalStatus } from "./call-status";
import { addToRunningTotals, closeCall, insertUsageRecord, type EngineAccount, type EngineCall } from "./engine-sql";

/** A call's event data, as every event about it carries it. */
export function eventData(call: EngineCall, extra: Partial<EventData> = {}): EventData {
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

export type FinishCall = {
  account: EngineAccount;
  call: EngineCall;
  status: TerminalStatus;
  /** Seconds; counted only for `completed`. */
  durationSeconds: number;
  answeredBy: string | null;
  endedAt: Date;
  /** Closed from Twilio's call record (reconciliation) rather than its callback. */
  reconciled: boolean;
  /** Twilio's SequenceNumber of the final status callback, for the call's timeline. */
  sequenceNumber?: number | null;
};

/**
 * The one way a call ends, whether Twilio's final status callback says so or
 * reconciliation reads it from Twilio's call record: the call is closed once,
 * and in that same transaction come the usage record, the Stripe meter job,
 * `call.ended` (and `call.error` for a failed call) and the running totals.
 * False when the call was already closed: nothing is done twice.
 */
export async function finishCall(opts: FinishCall): Promise<boolean> {
  const { account, call, status, endedAt } = opts;
  const durationSeconds = status === "completed" ? opts.durationSeconds : 0;
  const answeredBy = opts.answeredBy;
  const plan = await billingPlan();
  return transactionWithEvents(async (client, emit) => {
    const closedNow = await closeCall(client, { callId: call.id, status, rank: TERMINAL_RANK, endedAt, durationSeconds, answeredBy, reconciled: opts.reconciled,
      request: { kind: opts.reconciled ? "reconciliation" : "status", sequenceNumber: opts.sequenceNumber ?? null },
    });
    if (!closedNow) return false;

    const closed = { ...call, answeredBy };
    const breakdown = status === "completed" ? costBreakdown({ durationSeconds, perMinuteRate: plan.perMinuteRate }) : null;
    let usage: Partial<EventData> = {};
    if (breakdown) {
      await insertUsageRecord(client, { call: closed, breakdown, at: endedAt });
      await billing().recordBilledMinutes(client, { stripeCustomerId: account.stripeCustomerId, callSid: call.callSid, minutes: breakdown.billedMinutes, at: endedAt });
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
    return true;
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
