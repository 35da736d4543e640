import {
  ZCurrentUsageOutput,
  ZDailyUsageInput,
  ZDailyUsageOutput,
  ZListUsageInput,
  ZListUsageOutput,
} from "../../../shared/schemas/usage";
import { currentUsage, dailyUsage, listUsage } from "../../services/usage/usage";
import { restProcedure } from "../rest-procedure";
import { apiProcedure } from "../init";
import { exampleCostBreakdown, exampleTime } from "./example-values";

export const usage = {
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/usage",
    needs: "read",
    summary: "Usage records with cost breakdowns, newest first",
    input: ZListUsageInput,
    output: ZListUsageOutput,
    examples: {
      response: {
        records: [
          {
            id: "cmwra7d2g00082c7d1w9b5o2r",
            callSid: "CA0123456789abcdef0123456789abcdef",
            direction: "inbound",
            callerPhone: "+14155550100",
            callerNumber: "+14155550100",
            calledNumber: "+14155550123",
            durationSeconds: 61,
            billedMinutes: 2,
            costBreakdown: exampleCostBreakdown,
            createdAt: exampleTime,
          },
        ],
        total: 1,
        limit: 50,
        offset: 0,
        nextCursor: null,
      },
    },
  }).query(({ ctx, input }) => listUsage({ accountId: ctx.auth.account.id, ...input })),
  current: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/usage/current",
    needs: "read",
    summary: "This month's and all-time totals",
    output: ZCurrentUsageOutput,
    examples: {
      response: {
        currentMonth: { period: "2026-11", calls: 2, minutes: 3, billedMinutes: 3, estimatedCost: 49.06 },
        allTime: { calls: 2, minutes: 3, billedMinutes: 3 },
        perMinuteRate: 0.02,
        monthlyBase: 49,
      },
    },
  }).query(({ ctx }) => currentUsage({ accountId: ctx.auth.account.id })),
  daily: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/usage/daily",
    needs: "read",
    summary: "Calls, billed minutes and cost per UTC day (`days`, default 30, at most 90), oldest first",
    input: ZDailyUsageInput,
    output: ZDailyUsageOutput,
    examples: {
      response: {
        days: [
          { date: "2026-11-20", calls: 0, billedMinutes: 0, totalCost: 0 },
          { date: "2026-11-21", calls: 1, billedMinutes: 2, totalCost: 0.04 },
          { date: "2026-11-22", calls: 1, billedMinutes: 1, totalCost: 0.02 },
        ],
      },
    },
  }).query(({ ctx, input }) => dailyUsage({ accountId: ctx.auth.account.id, days: input.days })),
};
