import type { SqlTransaction } from "../../db/sql-transaction";
import { billing } from "../billing/billing-strategy";
import { sql } from "kysely";
import type { CostBreakdown } from "./billed-minutes";
import { billingPeriodKey, dayPeriod, numberDayPeriod, usagePeriod } from "./usage-periods";

/** What a completed call's usage is recorded from (the engine's view of the call and its account). */
export type UsageCall = {
  accountId: string;
  callSid: string;
  phoneNumberId: string | null;
  direction: string;
  fromNumber: string;
  toNumber: string;
};
export type UsageAccount = {
  stripeCustomerId: string | null;
  currentPeriodStart: Date | null;
  currentPeriodEnd: Date | null;
};

/**
 * A completed call's usage record, once per call SID (the table's unique key,
 * so a second close would fail the caller's transaction), in the caller's
 * transaction. The billing strategy feeds its minutes to the provider's meter
 * (Stripe mode: a durable job sent in that same transaction, never lost).
 */
export async function recordUsage(
  trx: SqlTransaction,
  opts: { account: UsageAccount; call: UsageCall; breakdown: CostBreakdown; at: Date },
): Promise<void> {
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
  await billing().recordBilledMinutes(trx, {
    stripeCustomerId: account.stripeCustomerId,
    callSid: call.callSid,
    minutes: breakdown.billedMinutes,
    at,
  });
}

/** A usage threshold the month crossed (docs/decisions.md §17): usage.threshold_reached and its email follow. */
export type CrossedThreshold = { threshold: number; monthlyBudget: number; spent: number; month: string };

/**
 * Adds a usage record to the running totals of every period it counts in, and records the account's
 * usage thresholds the month's new total reaches (docs/decisions.md §17), in one statement. Every call of
 * an account updates the same rows, so the caller makes this its transaction's last statement: the row
 * locks last one round trip and the commit, not the whole transaction. A threshold's row is inserted once
 * per month (its key), by whichever transaction first finds the total past it, so what is returned is
 * crossed exactly once; thresholds under a budget lowered mid-month are caught by the next call.
 */
export async function addToRunningTotals(
  trx: SqlTransaction,
  opts: {
    accountId: string;
    account: UsageAccount;
    breakdown: CostBreakdown;
    at: Date;
    phoneNumberId: string | null;
    callSid: string;
  },
): Promise<CrossedThreshold[]> {
  const { accountId, breakdown } = opts;
  const month = usagePeriod(opts.at);
  const periods = usagePeriods(opts.account, opts.at);
  if (opts.phoneNumberId) periods.push(numberDayPeriod(opts.phoneNumberId, opts.at));
  const rows = await trx
    .with("totals", (db) =>
      db
        .insertInto("UsageTotal")
        .values(
          periods.map((period) => ({
            accountId,
            period,
            calls: "1",
            billedMinutes: String(breakdown.billedMinutes),
            totalCost: String(breakdown.totalCost),
          })),
        )
        .onConflict((oc) =>
          oc.columns(["accountId", "period"]).doUpdateSet((eb) => ({
            calls: eb("UsageTotal.calls", "+", eb.ref("excluded.calls")),
            billedMinutes: eb("UsageTotal.billedMinutes", "+", eb.ref("excluded.billedMinutes")),
            totalCost: eb("UsageTotal.totalCost", "+", eb.ref("excluded.totalCost")),
            updatedAt: eb.ref("excluded.updatedAt"),
          })),
        )
        .returning(["period", "totalCost"]),
    )
    .insertInto("UsageThresholdCrossing")
    .columns(["accountId", "month", "threshold", "monthlyBudget", "spent", "callSid"])
    .expression((eb) =>
      eb
        .selectFrom("totals")
        .innerJoin("AccountLimit as l", (j) => j.on("l.accountId", "=", accountId))
        .innerJoin(sql<{ threshold: number }>`unnest(${sql.ref("l.alertThresholds")})`.as("t"), (j) => j.onTrue())
        .select([
          eb.val(accountId).as("accountId"),
          eb.val(month).as("month"),
          sql<number>`t`.as("threshold"),
          "l.monthlyBudget",
          "totals.totalCost",
          eb.val(opts.callSid).as("callSid"),
        ])
        .where("totals.period", "=", month)
        .where("l.monthlyBudget", "is not", null)
        .where("totals.totalCost", ">", sql<string>`0`)
        .where(sql<boolean>`${sql.ref("totals.totalCost")} * 100 >= ${sql.ref("l.monthlyBudget")} * t`),
    )
    .onConflict((oc) => oc.doNothing())
    .returning(["threshold", "monthlyBudget", "spent", "month"])
    .execute();
  return rows
    .map((r) => ({
      threshold: r.threshold,
      monthlyBudget: Number(r.monthlyBudget),
      spent: Number(r.spent),
      month: r.month,
    }))
    .sort((a, b) => a.threshold - b.threshold);
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
