import { transactionWithEvents, type Emit } from "../../webhooks/enqueue-event";
import { buildEvent, type EventData } from "../../webhooks/event-envelope";
import { billingPlan } from "../billing/billing-plan";
import { costBreakdown } from "../usage/billed-minutes";
import { addToRunningTotals, recordUsage } from "../usage/record-usage";
import { TERMINAL_RANK, type TerminalStatus } from "../../engine/call-status";
import { closeCall, type EngineAccount, type EngineCall } from "../../engine/engine-sql";

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
  /**
   * Nothing proved the status is Twilio's (no connection, not an outbound call
   * of ours): it bills at most the call's lifetime plus 60 s (docs/decisions.md §20).
   */
  unverified?: boolean;
};

/**
 * The one way a call ends, whether Twilio's final status callback says so or
 * reconciliation reads it from Twilio's call record: the call is closed once,
 * and in that same transaction come its usage (services/usage/record-usage.ts:
 * the record, the Stripe meter job, the running totals), `call.ended` (and
 * `call.error` for a failed call). False when the call was already closed:
 * nothing is done twice.
 */
export async function finishCall(opts: FinishCall): Promise<boolean> {
  const { account, call, status, endedAt } = opts;
  const reportedSeconds = status === "completed" ? opts.durationSeconds : 0;
  const answeredBy = opts.answeredBy;
  const plan = await billingPlan();
  return transactionWithEvents(async (trx, emit) => {
    const durationSeconds = await closeCall(trx, {
      callId: call.id,
      status,
      rank: TERMINAL_RANK,
      endedAt,
      durationSeconds: reportedSeconds,
      answeredBy,
      reconciled: opts.reconciled,
      request: { kind: opts.reconciled ? "reconciliation" : "status", sequenceNumber: opts.sequenceNumber ?? null },
      clampToLifetime: opts.unverified === true,
    });
    if (durationSeconds === null) return false;

    const closed = { ...call, answeredBy };
    const breakdown =
      status === "completed" ? costBreakdown({ durationSeconds, perMinuteRate: plan.perMinuteRate }) : null;
    let usage: Partial<EventData> = {};
    if (breakdown) {
      await recordUsage(trx, { account, call: closed, breakdown, at: endedAt });
      usage = { durationSeconds, billedMinutes: breakdown.billedMinutes, costBreakdown: breakdown };
    }
    await emit({
      accountId: account.id,
      url: call.onCallEndUrl,
      event: buildEvent("call.ended", eventData(closed, { status, ...usage })),
    });
    if (status === "failed" && call.onErrorUrl) {
      await emitFailure(emit, account.id, call.onErrorUrl, closed);
    }
    // Last before the commit: all of the account's calls update these rows.
    if (breakdown) await addToRunningTotals(trx, { accountId: account.id, account, breakdown, at: endedAt });
    return true;
  });
}

function emitFailure(emit: Emit, accountId: string, url: string, call: EngineCall) {
  const event = buildEvent(
    "call.error",
    eventData(call, {
      status: "failed",
      error: { code: "CALL_FAILED", message: "Twilio reported the call as failed." },
    }),
  );
  return emit({ accountId, url, event });
}
