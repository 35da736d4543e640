import { ZGetCallInput, ZGetCallOutput, ZListCallsInput, ZListCallsOutput } from "../../../shared/schemas/calls";
import {
  ZHangupInput,
  ZRecordingInput,
  ZRecordingOutput,
  ZRedirectInput,
  ZTransferInput,
} from "../../../shared/schemas/call-control";
import { getCall, listCalls } from "../../services/calls/calls";
import { controlRecording, hangupCall, redirectCall, transferCall } from "../../services/calls/control/call-control";
import { actorOf } from "../../services/calls/control/run-command";
import { restProcedure } from "../../rest/rest-procedure";
import type { Auth } from "../../auth/authenticate";
import { apiProcedure, unsuspendedProcedure } from "../init";

/** Who sends a live command and when it reached us (docs/decisions.md §13: the timeline shows both). */
const who = (ctx: { auth: Auth; authorization: string | null }) => ({
  accountId: ctx.auth.account.id,
  actor: actorOf(ctx.auth, ctx.authorization),
  startedAt: performance.now(),
});

const CONTROL_ERRORS = [403, 409, 502];

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
      "One call with its timeline: Twilio's requests, the call.started attempt, the TwiML returned, live commands, events sent, usage; and its recordings",
    input: ZGetCallInput,
    output: ZGetCallOutput,
  }).query(({ ctx, input }) => getCall({ accountId: ctx.auth.account.id, callSid: input.callSid })),
  hangup: restProcedure(unsuspendedProcedure, {
    method: "POST",
    path: "/api/calls/:callSid/hangup",
    needs: "write",
    standing: "unsuspended",
    summary:
      "Hang up a call that has not ended (Twilio's call update, Status=completed, or canceled before it is answered); the final status follows from Twilio as usual",
    errors: CONTROL_ERRORS,
    input: ZHangupInput,
    output: ZGetCallOutput,
  }).mutation(({ ctx, input }) => hangupCall(who(ctx), input.callSid)),
  redirect: restProcedure(unsuspendedProcedure, {
    method: "POST",
    path: "/api/calls/:callSid/redirect",
    needs: "write",
    standing: "unsuspended",
    summary: "A live call continues now with this TwiML, or these actions (Twilio's call update with Twiml)",
    errors: CONTROL_ERRORS,
    input: ZRedirectInput,
    output: ZGetCallOutput,
  }).mutation(({ ctx, input }) => redirectCall(who(ctx), input)),
  transfer: restProcedure(unsuspendedProcedure, {
    method: "POST",
    path: "/api/calls/:callSid/transfer",
    needs: "write",
    standing: "unsuspended",
    summary:
      "Transfer a live call to a number or SIP URI, with an optional whisper to the callee; its result comes as call.transferred or call.transfer_failed, and on failure the onFailure actions keep the caller on the line",
    errors: CONTROL_ERRORS,
    input: ZTransferInput,
    output: ZGetCallOutput,
  }).mutation(({ ctx, input }) => transferCall(who(ctx), input)),
  recording: restProcedure(unsuspendedProcedure, {
    method: "POST",
    path: "/api/calls/:callSid/recording",
    needs: "write",
    standing: "unsuspended",
    summary:
      "Start, pause, resume or stop recording a live call (Twilio's call Recordings resource); recording.completed or recording.failed follows",
    errors: CONTROL_ERRORS,
    input: ZRecordingInput,
    output: ZRecordingOutput,
  }).mutation(({ ctx, input }) => controlRecording(who(ctx), input)),
};
