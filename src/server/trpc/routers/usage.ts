import { ZCurrentUsageOutput, ZListUsageInput, ZListUsageOutput, ZSubscriptionOutput } from "../../schemas/usage";
import { currentUsage, listUsage, subscriptionSummary } from "../../services/usage/usage";
import { apiProcedure, router } from "../init";

export const usageRouter = router({
  list: apiProcedure
    .input(ZListUsageInput)
    .output(ZListUsageOutput)
    .query(({ ctx, input }) => listUsage({ accountId: ctx.auth.account.id, ...input })),
  current: apiProcedure.output(ZCurrentUsageOutput).query(({ ctx }) => currentUsage({ accountId: ctx.auth.account.id })),
  subscription: apiProcedure.output(ZSubscriptionOutput).query(({ ctx }) => subscriptionSummary({ accountId: ctx.auth.account.id })),
});
