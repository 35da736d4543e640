import { serverCallbackPolicy } from "../../callbacks/server-callback-policy";
import { ZOutboundOutput, outboundInputSchema } from "../../schemas/outbound";
import { startOutboundCall } from "../../services/calls/start-outbound-call";
import { paidProcedure, router } from "../init";

export const outboundRouter = router({
  create: paidProcedure
    .input(outboundInputSchema(serverCallbackPolicy))
    .output(ZOutboundOutput)
    .mutation(({ ctx, input }) => startOutboundCall({ accountId: ctx.auth.account.id, input })),
});
