import { ZGetCallInput, ZGetCallOutput, ZListCallsInput, ZListCallsOutput } from "../../schemas/calls";
import { getCall, listCalls } from "../../services/calls/calls";
import { restProcedure } from "../../rest/rest-procedure";
import { apiProcedure } from "../init";

export const calls = {
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/calls",
    needs: "read",
    summary: "Every call the engine saw, whatever its end, newest first; filters and an opaque keyset cursor",
    input: ZListCallsInput,
    output: ZListCallsOutput,
  }).query(({ ctx, input }) => listCalls({ accountId: ctx.auth.account.id, ...input })),
  get: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/calls/:callSid",
    needs: "read",
    summary:
      "One call with its timeline: Twilio's requests, the call.started attempt, the TwiML returned, events sent, usage",
    input: ZGetCallInput,
    output: ZGetCallOutput,
  }).query(({ ctx, input }) => getCall({ accountId: ctx.auth.account.id, callSid: input.callSid })),
};
