import { ZCurrentUsageOutput, ZDailyUsageInput, ZDailyUsageOutput, ZListUsageInput, ZListUsageOutput } from "../../schemas/usage";
import { currentUsage, dailyUsage, listUsage } from "../../services/usage/usage";
import { apiProcedure, router } from "../init";

export const usageRouter = router({
  list: apiProcedure
    .input(ZListUsageInput)
    .output(ZListUsageOutput)
    .query(({ ctx, input }) => listUsage({ accountId: ctx.auth.account.id, ...input })),
  daily: apiProcedure
    .input(ZDailyUsageInput)
    .output(ZDailyUsageOutput)
    .query(({ ctx, input }) => dailyUsage({ accountId: ctx.auth.account.id, days: input.days })),
  current: apiProcedure.output(ZCurrentUsageOutput).query(({ ctx }) => currentUsage({ accountId: ctx.auth.account.id })),
});
