import { z } from "zod";
import { queryInteger, ZAccountStatus, ZId, ZTimestamp } from "./common";
import { ZCallDirection } from "./enums";
import { ZPageInfo, ZPagination } from "./pagination";

export const ZListUsageInput = z.object({
  limit: ZPagination.shape.limit,
  offset: ZPagination.shape.offset
    .unwrap()
    .optional()
    .describe("Rows to skip (default 0); slower at depth than cursor, and not allowed with it"),
  cursor: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("nextCursor of the previous page: the page after it, at the same cost at any depth"),
});

const ZBilledMinutes = z
  .number()
  .int()
  .describe("Minutes billed: ceil(durationSeconds / 60) per call; a call of 0 seconds bills 0");
const ZDurationSeconds = z.number().int().describe("Twilio's CallDuration, in seconds");
const ZPerMinuteRate = z.number().describe("USD per billed minute");
const ZMonthlyBase = z.number().describe("USD per month, whatever the usage");

export const ZCostBreakdown = z
  .object({
    durationSeconds: ZDurationSeconds,
    billedMinutes: ZBilledMinutes,
    perMinuteRate: ZPerMinuteRate,
    usageCost: z.number().describe("billedMinutes × perMinuteRate, USD"),
    totalCost: z.number().describe("What this call adds to the bill, USD"),
    currency: z.literal("usd").describe("Always usd"),
  })
  .describe("How the call's cost was reached");

const ZUsageRecord = z.object({
  id: ZId,
  callSid: z.string().describe("Twilio's call SID (CA…); one usage record per call"),
  direction: ZCallDirection,
  callerPhone: z.string().describe("Shape A name of callerNumber; same value"),
  callerNumber: z.string().describe("Who called (Twilio's From), E.164"),
  calledNumber: z.string().describe("Who was called (Twilio's To), E.164"),
  durationSeconds: ZDurationSeconds,
  billedMinutes: ZBilledMinutes,
  costBreakdown: ZCostBreakdown,
  createdAt: ZTimestamp,
});
export const ZListUsageOutput = ZPageInfo.extend({
  records: z.array(ZUsageRecord).describe("Newest first"),
  nextCursor: z.string().nullable().describe("Pass as cursor for the next page; null on the last page"),
});

const ZTotals = z.object({
  calls: z.number().int().describe("Completed calls"),
  minutes: z.number().int().describe("Shape A name of billedMinutes; same value"),
  billedMinutes: ZBilledMinutes.describe("Billed minutes, summed per call"),
});
export const ZCurrentUsageOutput = z.object({
  currentMonth: ZTotals.extend({
    estimatedCost: z.number().describe("monthlyBase + the month's usage"),
    period: z.string().describe("UTC calendar month, YYYY-MM"),
  }).describe("This UTC calendar month"),
  allTime: ZTotals.describe("Since the account was created"),
  perMinuteRate: ZPerMinuteRate,
  monthlyBase: ZMonthlyBase,
});

export const ZSubscriptionOutput = z.object({
  status: ZAccountStatus,
  monthlyBase: ZMonthlyBase,
  perMinuteRate: ZPerMinuteRate,
  totalCalls: z.number().int().describe("Completed calls in the current period"),
  totalMinutes: z.number().int().describe("Shape A name of totalBilledMinutes; same value"),
  totalBilledMinutes: z.number().int().describe("Billed minutes in the current period"),
  hasPaymentMethod: z
    .boolean()
    .describe("Stripe mode: a payment method is on file; local billing mode: the account has paid"),
  currentPeriodStart: ZTimestamp.describe(
    "Start of the billing period (Stripe's when known, else the UTC calendar month)",
  ),
  currentPeriodEnd: ZTimestamp.describe("End of the billing period"),
});

export const ZDailyUsageInput = z.object({
  days: queryInteger({ min: 1, max: 90 }).default(30).describe("How many UTC days, ending today (1–90, default 30)"),
});
export const ZDailyUsageOutput = z.object({
  days: z
    .array(
      z.object({
        date: z.string().describe("UTC day, YYYY-MM-DD"),
        calls: z.number().int().describe("Completed calls that day"),
        billedMinutes: ZBilledMinutes.describe("Billed minutes that day"),
        totalCost: z.number().describe("Usage cost that day, USD (without the monthly base)"),
      }),
    )
    .describe("Oldest first, one entry per day including days without calls, ending today (UTC)"),
});
