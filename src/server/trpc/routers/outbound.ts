import { SERVER_ANSWER_CHECKS } from "../../services/answers/answer-checks";
import { serverCallbackPolicy } from "../../webhooks/http/server-callback-policy";
import { ZOutboundOutput, outboundInputSchema } from "../../../shared/schemas/outbound";
import { startOutboundCall } from "../../services/calls/start-outbound-call";
import { restProcedure } from "../../rest/rest-procedure";
import { paidProcedure } from "../init";

export const outbound = {
  create: restProcedure(paidProcedure, {
    method: "POST",
    path: "/api/outbound",
    needs: "write",
    standing: "paid",
    status: 201,
    summary: "Start an outbound call from a registered number",
    errors: [402, 403, 502],
    input: outboundInputSchema(serverCallbackPolicy, SERVER_ANSWER_CHECKS),
    output: ZOutboundOutput,
  }).mutation(({ ctx, input }) => startOutboundCall({ accountId: ctx.auth.account.id, input })),
};
