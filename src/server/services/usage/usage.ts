import { db } from "../../db/client";
import { kysely } from "../../db/kysely";
import { AppError } from "../../errors/app-error";
import { decodeKeysetCursor, encodeKeysetCursor } from "../pagination/keyset-cursor";
import { billingPlan } from "../billing/billing-plan";
import { billing } from "../billing/billing-strategy";
import { roundMoney } from "./billed-minutes";
import { billingPeriodKey, dayPeriod, periodBounds, usagePeriod } from "./usage-periods";
import type { CostBreakdown } from "./billed-minutes";

type Totals = { calls: number; billedMinutes: number; totalCost: number };
const ZERO: Totals = { calls: 0, billedMinutes: 0, totalCost: 0 };

/** The running totals of the given periods: one indexed read, whatever the history. */
async function totals(accountId: string, periods: string[]): Promise<Record<string, Totals>> {
  const rows = await db().usageTotal.findMany({ where: { accountId, period: { in: periods } } });
  const out: Record<string, Totals> = {};
  for (const p of periods) out[p] = ZERO;
  for (const r of rows)
    out[r.period] = { calls: Number(r.calls), billedMinutes: Number(r.billedMinutes), totalCost: Number(r.totalCost) };
  return out;
}

/**
 * Keyset paging on the index (accountId, createdAt desc, id desc): the row
 * comparison is an index bound, so a page after a cursor costs the same at any
 * depth. OFFSET still works but reads and discards every row before the page.
 */
function usagePage(opts: {
  accountId: string;
  limit: number;
  offset: number;
  after: { createdAt: Date; id: string } | null;
}) {
  let query = kysely()
    .selectFrom("UsageRecord as u")
    .select([
      "u.id",
      "u.callSid",
      "u.direction",
      "u.callerNumber",
      "u.calledNumber",
      "u.durationSeconds",
      "u.billedMinutes",
      "u.costBreakdown",
      "u.createdAt",
    ])
    .where("u.accountId", "=", opts.accountId);
  const after = opts.after;
  if (after)
    query = query.where((eb) => eb(eb.refTuple("u.createdAt", "u.id"), "<", eb.tuple(after.createdAt, after.id)));
  return query.orderBy("u.createdAt", "desc").orderBy("u.id", "desc").limit(opts.limit).offset(opts.offset).execute();
}

/** Newest first; `total` comes from the running totals rather than a count over the records. */
export async function listUsage(opts: { accountId: string; limit: number; offset?: number; cursor?: string }) {
  if (opts.cursor !== undefined && opts.offset !== undefined) {
    throw new AppError("VALIDATION_FAILED", "Use either cursor or offset, not both.", {
      details: [{ path: "offset", message: "not allowed with cursor" }],
    });
  }
  const after = opts.cursor === undefined ? null : decodeKeysetCursor(opts.cursor);
  const offset = opts.offset ?? 0;
  // One row more than the page says whether there is a next page.
  const [rows, all] = await Promise.all([
    usagePage({ accountId: opts.accountId, limit: opts.limit + 1, offset, after }),
    totals(opts.accountId, ["all"]),
  ]);
  const page = rows.slice(0, opts.limit);
  const last = page[page.length - 1];
  return {
    records: page.map((r) => ({
      id: r.id,
      callSid: r.callSid,
      direction: r.direction === "outbound" ? ("outbound" as const) : ("inbound" as const),
      callerPhone: r.callerNumber,
      callerNumber: r.callerNumber,
      calledNumber: r.calledNumber,
      durationSeconds: r.durationSeconds,
      billedMinutes: r.billedMinutes,
      costBreakdown: r.costBreakdown as CostBreakdown,
      createdAt: r.createdAt.toISOString(),
    })),
    total: all.all!.calls,
    limit: opts.limit,
    offset,
    nextCursor: rows.length > opts.limit && last ? encodeKeysetCursor(last) : null,
  };
}

/** Per UTC day for the last `days` days, from the daily running totals: one indexed read. */
export async function dailyUsage(opts: { accountId: string; days: number; now?: Date }) {
  const today = opts.now ?? new Date();
  const dates: Date[] = [];
  for (let i = opts.days - 1; i >= 0; i--)
    dates.push(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - i)));
  const t = await totals(opts.accountId, dates.map(dayPeriod));
  return {
    days: dates.map((d) => {
      const day = t[dayPeriod(d)]!;
      return {
        date: d.toISOString().slice(0, 10),
        calls: day.calls,
        billedMinutes: day.billedMinutes,
        totalCost: roundMoney(day.totalCost),
      };
    }),
  };
}

export async function currentUsage(opts: { accountId: string; now?: Date }) {
  const period = usagePeriod(opts.now ?? new Date());
  const t = await totals(opts.accountId, [period, "all"]);
  const month = t[period]!;
  const all = t.all!;
  const plan = await billingPlan();
  return {
    currentMonth: {
      period,
      calls: month.calls,
      minutes: month.billedMinutes,
      billedMinutes: month.billedMinutes,
      estimatedCost: roundMoney(plan.monthlyBase + month.totalCost),
    },
    allTime: { calls: all.calls, minutes: all.billedMinutes, billedMinutes: all.billedMinutes },
    perMinuteRate: plan.perMinuteRate,
    monthlyBase: plan.monthlyBase,
  };
}

/**
 * docs/decisions.md §9: totals over the current billing period: Stripe's when its
 * webhooks told us one that is still current, else the UTC calendar month.
 */
export async function subscriptionSummary(opts: { accountId: string; now?: Date }) {
  const now = opts.now ?? new Date();
  const account = await db().account.findUniqueOrThrow({
    where: { id: opts.accountId },
    select: { status: true, hasPaymentMethod: true, currentPeriodStart: true, currentPeriodEnd: true },
  });
  const stripePeriod =
    account.currentPeriodStart &&
    account.currentPeriodEnd &&
    now >= account.currentPeriodStart &&
    now < account.currentPeriodEnd;
  const { start, end } = stripePeriod
    ? { start: account.currentPeriodStart!, end: account.currentPeriodEnd! }
    : periodBounds(now);
  const key = stripePeriod ? billingPeriodKey(start) : usagePeriod(now);
  const [t, plan] = await Promise.all([totals(opts.accountId, [key]), billingPlan()]);
  return {
    status: account.status,
    monthlyBase: plan.monthlyBase,
    perMinuteRate: plan.perMinuteRate,
    totalCalls: t[key]!.calls,
    totalMinutes: t[key]!.billedMinutes,
    totalBilledMinutes: t[key]!.billedMinutes,
    hasPaymentMethod: billing().hasPaymentMethod(account),
    currentPeriodStart: start.toISOString(),
    currentPeriodEnd: end.toISOString(),
  };
}
