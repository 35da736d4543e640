import { SERVER_ANSWER_CHECKS } from "../../services/answers/answer-checks";
import { serverCallbackPolicy } from "../../webhooks/http/server-callback-policy";
import { ZOutboundOutput, outboundInputSchema } from "../../../shared/schemas/outbound";
import { startOutboundCall } from "../../services/calls/start-outbound-call";
import { restProcedure } from "../rest-procedure";
import { paidProcedure } from "../init";

export const outbound = {
  create: restProcedure(paidProcedure, {
    method: "POST",
    path: "/api/outbound",
    needs: "write",
    status: 201,
    summary: "Start an outbound call from a registered number",
    errors: [502],
    input: outboundInputSchema(serverCallbackPolicy, SERVER_ANSWER_CHECKS),
    output: ZOutboundOutput,
    examples: {
      request: {
        to: "+14155550199",
        from: "+14155550123",
        onCallStartUrl: "https://api.example.com/twilio/outbound-start",
        onCallEndUrl: "https://api.example.com/twilio/outbound-end",
        providerAccountSid: "AC0123456789abcdef0123456789abcdef",
        providerAuthToken: "your_auth_token",
        metadata: { orderId: "A-17" },
        machineDetection: "Enable",
        timeout: 30,
      },
      response: { callSid: "CA0123456789abcdef0123456789abcdef", status: "queued" },
    },
  }).mutation(({ ctx, input }) => startOutboundCall({ accountId: ctx.auth.account.id, input })),
};
