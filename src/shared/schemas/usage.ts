import { z } from "zod";
import { queryInteger, ZAccountStatus, ZTimestamp } from "./common";
import { ZCallDirection } from "./enums";
import { ZPageInfo, ZPagination } from "./pagination";
import {
  boundedString,
  callMinutesInt,
  callSecondsInt,
  countInt,
  CURSOR_MAX_CHARS,
  DAILY_USAGE_MAX_DAYS,
  outputId,
  PAGE_MAX_ITEMS,
  twilioField,
} from "./bounds";

export const ZListUsageInput = z.object({
  limit: ZPagination.shape.limit,
  offset: ZPagination.shape.offset
    .unwrap()
    .optional()
    .describe("Rows to skip (default 0); slower at depth than cursor, and not allowed with it"),
  cursor: z
    .string()
    .min(1)
    .max(CURSOR_MAX_CHARS)
    .optional()
    .describe("nextCursor of the previous page: the page after it, at the same cost at any depth"),
});

const ZBilledMinutes = callMinutesInt().describe(
  "Minutes billed: ceil(durationSeconds / 60) per call; a call of 0 seconds bills 0",
);
/** Billed minutes summed over calls. */
const ZSummedMinutes = countInt();
const ZDurationSeconds = callSecondsInt().describe("Twilio's CallDuration, in seconds");
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

const ZUsageRecord = z
  .object({
    id: outputId(),
    callSid: twilioField().describe("Twilio's call SID (CA…); one usage record per call"),
    direction: ZCallDirection,
    callerPhone: twilioField().describe("Shape A name of callerNumber; same value"),
    callerNumber: twilioField().describe("Who called (Twilio's From), E.164"),
    calledNumber: twilioField().describe("Who was called (Twilio's To), E.164"),
    durationSeconds: ZDurationSeconds,
    billedMinutes: ZBilledMinutes,
    costBreakdown: ZCostBreakdown,
    createdAt: ZTimestamp,
  })
  .meta({ id: "UsageRecord" });
export const ZListUsageOutput = ZPageInfo.extend({
  records: z.array(ZUsageRecord).max(PAGE_MAX_ITEMS).describe("Newest first"),
  nextCursor: boundedString(CURSOR_MAX_CHARS)
    .nullable()
    .describe("Pass as cursor for the next page; null on the last page"),
});

const ZTotals = z.object({
  calls: countInt().describe("Completed calls"),
  minutes: ZSummedMinutes.describe("Shape A name of billedMinutes; same value"),
  billedMinutes: ZSummedMinutes.describe("Billed minutes, summed per call"),
});
export const ZCurrentUsageOutput = z.object({
  currentMonth: ZTotals.extend({
    estimatedCost: z.number().describe("monthlyBase + the month's usage"),
    period: z
      .string()
      .regex(/^\d{4}-\d{2}$/)
      .max(7)
      .describe("UTC calendar month, YYYY-MM"),
  }).describe("This UTC calendar month"),
  allTime: ZTotals.describe("Since the account was created"),
  perMinuteRate: ZPerMinuteRate,
  monthlyBase: ZMonthlyBase,
});

export const ZSubscriptionOutput = z.object({
  status: ZAccountStatus,
  monthlyBase: ZMonthlyBase,
  perMinuteRate: ZPerMinuteRate,
  totalCalls: countInt().describe("Completed calls in the current period"),
  totalMinutes: ZSummedMinutes.describe("Shape A name of totalBilledMinutes; same value"),
  totalBilledMinutes: ZSummedMinutes.describe("Billed minutes in the current period"),
  hasPaymentMethod: z
    .boolean()
    .describe("Stripe mode: a payment method is on file; local billing mode: the account has paid"),
  currentPeriodStart: ZTimestamp.describe(
    "Start of the billing period (Stripe's when known, else the UTC calendar month)",
  ),
  currentPeriodEnd: ZTimestamp.describe("End of the billing period"),
});

export const ZDailyUsageInput = z.object({
  days: queryInteger({ min: 1, max: DAILY_USAGE_MAX_DAYS })
    .default(30)
    .describe("How many UTC days, ending today (1–90, default 30)"),
});
export const ZDailyUsageOutput = z.object({
  days: z
    .array(
      z.object({
        date: z
          .string()
          .regex(/^\d{4}-\d{2}-\d{2}$/)
          .max(10)
          .describe("UTC day, YYYY-MM-DD"),
        calls: countInt().describe("Completed calls that day"),
        billedMinutes: ZSummedMinutes.describe("Billed minutes that day"),
        totalCost: z.number().describe("Usage cost that day, USD (without the monthly base)"),
      }),
    )
    .max(DAILY_USAGE_MAX_DAYS)
    .describe("Oldest first, one entry per day including days without calls, ending today (UTC)"),
});
