import { transactionWithEvents, type Emit } from "../../webhooks/enqueue-event";
import { buildEvent, type EventData } from "../../webhooks/event-envelope";
import { billingPlan } from "../billing/billing-plan";
import { costBreakdown } from "../usage/billed-minutes";
import { addToRunningTotals, recordUsage } from "../usage/record-usage";
import { TERMINAL_RANK, type TerminalStatus } from "./call-status";
import type { CallEndReason } from "../../../shared/schemas/enums";
import { closeCall, freeLiveSlot } from "./close-call";
import type { EngineAccount, EngineCall } from "./call-row";
import { announceThreshold } from "../limits/announce-threshold";

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
  /** Twilio's final status, or `unknown` when it never came (docs/decisions.md §14: nothing billed). */
  status: TerminalStatus | "unknown";
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
  /**
   * Why the call ended (docs/decisions.md §14); by default what the close says: `reconciled` when read
   * from Twilio's record, `no-final-status` for `unknown`, else Twilio's final status.
   */
  endReason?: CallEndReason;
  /** Twilio's SipResponseCode and ErrorCode from the final status callback, when it sent them (§22). */
  sipResponseCode?: number | null;
  twilioErrorCode?: number | null;
  /**
   * A simulated call (docs/decisions.md §21), ended by Routekit right after its answer: nothing billed,
   * no usage nor running totals, no Twilio request on its timeline, and `call.ended` carries `data.test = true`.
   */
  test?: boolean;
};

/** The endReason a close implies when no decision of Routekit's ended the call. */
function impliedEndReason(opts: Pick<FinishCall, "status" | "reconciled">): CallEndReason {
  if (opts.reconciled) return "reconciled";
  return opts.status === "unknown" ? "no-final-status" : opts.status;
}

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
  const impliedReason = opts.endReason ?? impliedEndReason(opts);
  const carrier = { sipResponseCode: opts.sipResponseCode ?? null, twilioErrorCode: opts.twilioErrorCode ?? null };
  const plan = await billingPlan();
  return transactionWithEvents(async (trx, emit) => {
    const closedAs = await closeCall(trx, {
      callId: call.id,
      status,
      rank: TERMINAL_RANK,
      endedAt,
      durationSeconds: reportedSeconds,
      answeredBy,
      reconciled: opts.reconciled,
      // Twilio's requests go on the timeline even when they change nothing; Routekit's own close only when it closed.
      request:
        status === "unknown" || opts.test
          ? null
          : { kind: opts.reconciled ? "reconciliation" : "status", sequenceNumber: opts.sequenceNumber ?? null },
      clampToLifetime: opts.unverified === true,
      endReason: impliedReason,
      ...carrier,
    });
    if (closedAs === null) return false;
    const { durationSeconds } = closedAs;
    // What the close wrote: a live command's mark (hung-up-by-api, transferred) wins over Twilio's status.
    const endReason = closedAs.endReason as CallEndReason;
    if (status === "unknown")
      await trx
        .insertInto("CallRequest")
        .values({ callId: call.id, at: endedAt, kind: "closed", callStatus: status })
        .execute();

    const closed = { ...call, answeredBy };
    const breakdown =
      status === "completed" && !opts.test
        ? costBreakdown({ durationSeconds, perMinuteRate: plan.perMinuteRate })
        : null;
    let usage: Partial<EventData> = {};
    if (breakdown) {
      await recordUsage(trx, { account, call: closed, breakdown, at: endedAt });
      usage = { durationSeconds, billedMinutes: breakdown.billedMinutes, costBreakdown: breakdown };
    }
    await emit({
      accountId: account.id,
      url: call.onCallEndUrl,
      event: buildEvent(
        "call.ended",
        eventData(closed, {
          status,
          ...usage,
          endReason,
          sipResponseCode: carrier.sipResponseCode,
          errorCode: carrier.twilioErrorCode,
          ...(opts.test && { test: true as const }),
        }),
      ),
    });
    // Without an onErrorUrl, account endpoints subscribed to call.error still receive it (docs/decisions.md §15).
    if (status === "failed") await emitFailure(emit, account.id, call.onErrorUrl, closed);
    // Last before the commit: all of the account's calls update these rows (its live count, its totals).
    await freeLiveSlot(trx, call.id);
    if (breakdown) {
      const crossed = await addToRunningTotals(trx, {
        accountId: account.id,
        account,
        breakdown,
        at: endedAt,
        phoneNumberId: call.phoneNumberId,
        callSid: call.callSid,
      });
      for (const threshold of crossed) await announceThreshold(trx, emit, { accountId: account.id, call, threshold });
    }
    return true;
  });
}

function emitFailure(emit: Emit, accountId: string, url: string | null, call: EngineCall) {
  const event = buildEvent(
    "call.error",
    eventData(call, {
      status: "failed",
      error: { code: "CALL_FAILED", message: "Twilio reported the call as failed." },
    }),
  );
  return emit({ accountId, url, event });
}
