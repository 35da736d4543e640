import type { SqlTransaction } from "../../db/sql-transaction";
import { env } from "../../env";
import { stripeMeterEventJob } from "../../jobs/definitions/stripe-meter-event";
import { onTransaction, sendJob } from "../../jobs/job-queue";
import { billingPeriodKey, dayPeriod, usagePeriod, type CostBreakdown } from "./billed-minutes";

/** What a completed call's usage is recorded from (the engine's view of the call and its account). */
export type UsageCall = { accountId: string; callSid: string; phoneNumberId: string | null; direction: string; fromNumber: string; toNumber: string };
export type UsageAccount = { stripeCustomerId: string | null; currentPeriodStart: Date | null; currentPeriodEnd: Date | null };

/**
 * A completed call's usage record, once per call SID (the table's unique key,
 * so a second close would fail the caller's transaction), in the caller's
 * transaction. In Stripe mode its minutes go to Stripe's meter from the
 * durable queue, sent in that same transaction, so they are never lost.
 */
export async function recordUsage(trx: SqlTransaction, opts: { account: UsageAccount; call: UsageCall; breakdown: CostBreakdown; at: Date }): Promise<void> {
  const { account, call, breakdown, at } = opts;
  await trx
    .insertInto("UsageRecord")
    .values({
      accountId: call.accountId,
      callSid: call.callSid,
      phoneNumberId: call.phoneNumberId,
      direction: call.direction,
      callerNumber: call.fromNumber,
      calledNumber: call.toNumber,
      durationSeconds: breakdown.durationSeconds,
      billedMinutes: breakdown.billedMinutes,
      totalCost: String(breakdown.totalCost),
      costBreakdown: JSON.stringify(breakdown),
      createdAt: at,
    })
    .execute();
  if (env().billingMode === "stripe" && account.stripeCustomerId && breakdown.billedMinutes > 0) {
    const meter = { stripeCustomerId: account.stripeCustomerId, callSid: call.callSid, minutes: breakdown.billedMinutes, timestamp: Math.floor(at.getTime() / 1000) };
    await sendJob(stripeMeterEventJob, meter, { db: onTransaction(trx) });
  }
}

/**
 * Adds a usage record to the running totals of every period it counts in, in
 * one statement. Every call of an account updates the same rows, so the caller
 * makes this its transaction's last statement: the row locks last one round
 * trip and the commit, not the whole transaction.
 */
export async function addToRunningTotals(trx: SqlTransaction, opts: { accountId: string; account: UsageAccount; breakdown: CostBreakdown; at: Date }): Promise<void> {
  const { accountId, breakdown } = opts;
  await trx
    .insertInto("UsageTotal")
    .values(usagePeriods(opts.account, opts.at).map((period) => ({ accountId, period, calls: "1", billedMinutes: String(breakdown.billedMinutes), totalCost: String(breakdown.totalCost) })))
    .onConflict((oc) =>
      oc.columns(["accountId", "period"]).doUpdateSet((eb) => ({
        calls: eb("UsageTotal.calls", "+", eb.ref("excluded.calls")),
        billedMinutes: eb("UsageTotal.billedMinutes", "+", eb.ref("excluded.billedMinutes")),
        totalCost: eb("UsageTotal.totalCost", "+", eb.ref("excluded.totalCost")),
        updatedAt: eb.ref("excluded.updatedAt"),
      })),
    )
    .execute();
}

/**
 * The running totals a usage record counts in: its month, its day, all time,
 * and Stripe's billing period when we know it. Summaries and the daily chart
 * read these and never scan history.
 */
function usagePeriods(account: UsageAccount, at: Date): string[] {
  const periods = [usagePeriod(at), dayPeriod(at), "all"];
  const { currentPeriodStart: start, currentPeriodEnd: end } = account;
  if (start && end && at >= start && at < end) periods.push(billingPeriodKey(start));
  return periods;
}
