import { ZGetCallInput, ZGetCallOutput, ZListCallsInput, ZListCallsOutput } from "../../schemas/calls";
import { getCall, listCalls } from "../../services/calls/calls";
import { apiProcedure, router } from "../init";

export const callsRouter = router({
  list: apiProcedure
    .input(ZListCallsInput)
    .output(ZListCallsOutput)
    .query(({ ctx, input }) => listCalls({ accountId: ctx.auth.account.id, ...input })),
  get: apiProcedure
    .input(ZGetCallInput)
    .output(ZGetCallOutput)
    .query(({ ctx, input }) => getCall({ accountId: ctx.auth.account.id, callSid: input.callSid })),
});
