import { ZCurrentUsageOutput, ZListUsageInput, ZListUsageOutput } from "../../schemas/usage";
import { currentUsage, listUsage } from "../../services/usage/usage";
import { apiProcedure, router } from "../init";

export const usageRouter = router({
  list: apiProcedure
    .input(ZListUsageInput)
    .output(ZListUsageOutput)
    .query(({ ctx, input }) => listUsage({ accountId: ctx.auth.account.id, ...input })),
  current: apiProcedure.output(ZCurrentUsageOutput).query(({ ctx }) => currentUsage({ accountId: ctx.auth.account.id })),
});
