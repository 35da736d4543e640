import {
  ZCurrentUsageOutput,
  ZDailyUsageInput,
  ZDailyUsageOutput,
  ZListUsageInput,
  ZListUsageOutput,
} from "../../../shared/schemas/usage";
import { currentUsage, dailyUsage, listUsage } from "../../services/usage/usage";
import { restProcedure } from "../../rest/rest-procedure";
import { apiProcedure } from "../init";

export const usage = {
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/usage",
    needs: "read",
    summary: "Usage records with cost breakdowns, newest first",
    input: ZListUsageInput,
    output: ZListUsageOutput,
  }).query(({ ctx, input }) => listUsage({ accountId: ctx.auth.account.id, ...input })),
  current: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/usage/current",
    needs: "read",
    summary: "This month's and all-time totals",
    output: ZCurrentUsageOutput,
  }).query(({ ctx }) => currentUsage({ accountId: ctx.auth.account.id })),
  daily: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/usage/daily",
    needs: "read",
    summary: "Calls, billed minutes and cost per UTC day (`days`, default 30, at most 90), oldest first",
    input: ZDailyUsageInput,
    output: ZDailyUsageOutput,
  }).query(({ ctx, input }) => dailyUsage({ accountId: ctx.auth.account.id, days: input.days })),
};
