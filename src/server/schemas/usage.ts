import { z } from "zod";
import { ZAccountStatus, ZId, ZTimestamp } from "./common";
import { ZCallDirection } from "./enums";
import { ZPageInfo, ZPagination } from "./pagination";

export const ZListUsageInput = z.object({
  limit: ZPagination.shape.limit,
  offset: ZPagination.shape.offset.unwrap().optional().describe("Rows to skip (default 0); slower at depth than cursor, and not allowed with it"),
  cursor: z.string().min(1).max(200).optional().describe("nextCursor of the previous page: the page after it, at the same cost at any depth"),
});

export const ZCostBreakdown = z.object({
  durationSeconds: z.number().int(),
  billedMinutes: z.number().int(),
  perMinuteRate: z.number(),
  usageCost: z.number(),
  totalCost: z.number(),
  currency: z.literal("usd"),
});

export const ZUsageRecord = z.object({
  id: ZId,
  callSid: z.string(),
  direction: ZCallDirection,
  callerPhone: z.string().describe("Shape A name of callerNumber; same value"),
  callerNumber: z.string(),
  calledNumber: z.string(),
  durationSeconds: z.number().int(),
  billedMinutes: z.number().int(),
  costBreakdown: ZCostBreakdown,
  createdAt: ZTimestamp,
});
export const ZListUsageOutput = ZPageInfo.extend({
  records: z.array(ZUsageRecord),
  nextCursor: z.string().nullable().describe("Pass as cursor for the next page; null on the last page"),
});

const ZTotals = z.object({
  calls: z.number().int(),
  minutes: z.number().int().describe("Shape A name of billedMinutes; same value"),
  billedMinutes: z.number().int(),
});
export const ZCurrentUsageOutput = z.object({
  currentMonth: ZTotals.extend({ estimatedCost: z.number().describe("monthlyBase + the month's usage"), period: z.string().describe("UTC calendar month, YYYY-MM") }),
  allTime: ZTotals,
  perMinuteRate: z.number(),
  monthlyBase: z.number(),
});

export const ZSubscriptionOutput = z.object({
  status: ZAccountStatus,
  monthlyBase: z.number(),
  perMinuteRate: z.number(),
  totalCalls: z.number().int(),
  totalMinutes: z.number().int().describe("Shape A name of totalBilledMinutes; same value"),
  totalBilledMinutes: z.number().int(),
  hasPaymentMethod: z.boolean(),
  currentPeriodStart: ZTimestamp,
  currentPeriodEnd: ZTimestamp,
});

export const ZDailyUsageInput = z.object({
  days: z.coerce.number({ message: "must be an integer" }).int({ message: "must be an integer" }).min(1, { message: "must be at least 1" }).max(90, { message: "must be at most 90" }).default(30),
});
export const ZDailyUsageOutput = z.object({
  days: z.array(
    z.object({
      date: z.string().describe("UTC day, YYYY-MM-DD"),
      calls: z.number().int(),
      billedMinutes: z.number().int(),
      totalCost: z.number(),
    }),
  ).describe("Oldest first, one entry per day including days without calls, ending today (UTC)"),
});
