import type { z } from "zod";
import {
  type TTimelineEntry,
  ZGetCallInput,
  ZGetCallOutput,
  ZListCallsInput,
  ZListCallsOutput,
} from "../../../shared/schemas/calls";
import {
  ZHangupInput,
  ZRecordingInput,
  ZRecordingOutput,
  ZRedirectInput,
  ZTransferInput,
} from "../../../shared/schemas/call-control";
import { getCall, listCalls } from "../../services/calls/calls";
import { replayInputSchema, ZReplayOutput } from "../../../shared/schemas/shadow";
import { replayCall } from "../../services/shadow/replay-call";
import { serverCallbackPolicy } from "../../webhooks/http/server-callback-policy";
import { controlRecording, hangupCall, redirectCall, transferCall } from "../../services/calls/control/call-control";
import { actorOf } from "../../services/calls/control/run-command";
import { originOf } from "../../services/audit/record-audit";
import { restProcedure } from "../rest-procedure";
import type { Auth } from "../../auth/authenticate";
import { apiProcedure, paidProcedure, unsuspendedProcedure } from "../init";
import { exampleCall, exampleCostBreakdown, exampleDelivery, exampleTime } from "./example-values";

/** Who sends a live command and when it reached us (docs/decisions.md §13: the timeline shows both). */
const who = (ctx: { auth: Auth; authorization: string | null; ip: string }) => ({
  accountId: ctx.auth.account.id,
  actor: actorOf(ctx.auth, ctx.authorization),
  origin: originOf(ctx.auth, ctx.ip),
  startedAt: performance.now(),
});

const CONTROL_ERRORS = [409, 502];

type Command = Extract<TTimelineEntry, { type: "command" }>;

/** The example call as a live command answers it: still in progress, its timeline holding the command. */
function exampleLiveCallAfter(
  command: Command["command"],
  details: Command["details"],
): z.output<typeof ZGetCallOutput> {
  return {
    call: {
      ...exampleCall({ answer: "xml", error: null }),
      status: "in-progress",
      endedAt: null,
      durationSeconds: null,
      billedMinutes: null,
      costBreakdown: null,
      timeline: [
        {
          type: "command",
          at: "2026-11-22T10:00:30.000Z",
          command,
          actor: "rtk_7Hq2Xp9a",
          outcome: "ok",
          providerStatus: 200,
          providerError: null,
          latencyMs: 142,
          ownMs: 6,
          details,
        },
      ],
      recordings: [],
    },
  };
}

export const calls = {
  replay: restProcedure(paidProcedure, {
    method: "POST",
    path: "/api/calls/:callSid/replay",
    needs: "write",
    summary:
      "Send a past inbound call's call.started again, as first sent (with `data.replay = true` and `data.originalEventId`, a new webhook-id, signed with the current secret), to a URL, and compare its answer with how the call was decided (docs/decisions.md §23). Nothing reaches Twilio, nothing is billed or counted, the call does not change. Inbound calls of the last 30 days; at most 10 a minute per account",
    errors: [404],
    input: replayInputSchema(serverCallbackPolicy),
    output: ZReplayOutput,
    examples: {
      request: { onCallStartUrl: "https://v2.api.example.com/twilio/start" },
      response: {
        replay: {
          outcome: "different",
          original: { answer: "xml", twiml: "<Response><Say>Hello</Say></Response>" },
          replayed: {
            answer: "xml",
            twiml: "<Response><Say>Hello there</Say></Response>",
            latencyMs: 92,
          },
          deliveryId: "cmwra4z2c00052c7dq7ds1m2p",
          eventId: "evt_9x2Hf8sLk1mNoPqZ",
        },
      },
    },
  }).mutation(({ ctx, input }) =>
    replayCall({
      accountId: ctx.auth.account.id,
      callSid: input.callSid,
      onCallStartUrl: input.onCallStartUrl,
      origin: originOf(ctx.auth, ctx.ip),
    }),
  ),
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/calls",
    needs: "read",
    summary: "Every call the engine saw, whatever its end, newest first; filters and an opaque keyset cursor",
    input: ZListCallsInput,
    output: ZListCallsOutput,
    examples: {
      response: {
        calls: [
          exampleCall({
            answer: "fallback",
            error: { code: "START_CALLBACK_TIMEOUT", message: "onCallStartUrl: no answer within 5000 ms" },
          }),
        ],
        nextCursor: "MjAyNi0xMS0yMlQxMDowMDowMC4wMDBafGNtd3JhN2QyZzAwMDgyYzdkMXc5YjVvMnI",
      },
    },
  }).query(({ ctx, input }) => listCalls({ accountId: ctx.auth.account.id, ...input })),
  get: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/calls/:callSid",
    needs: "read",
    summary:
      "One call with its timeline: Twilio's requests, the call.started attempt, the TwiML returned, live commands, events sent, usage; and its recordings",
    input: ZGetCallInput,
    output: ZGetCallOutput,
    examples: {
      response: {
        call: {
          ...exampleCall({ answer: "xml", error: null }),
          timeline: [
            { type: "request", at: exampleTime, kind: "voice", callStatus: "ringing", sequenceNumber: null },
            {
              type: "call.started",
              at: exampleTime,
              deliveryId: "cmwra4z2c00052c7dq7ds1m2m",
              attempt: "primary",
              outcome: "xml",
              url: "https://api.example.com/twilio/start",
              statusCode: 200,
              latencyMs: 84,
              responseExcerpt: "<Response><Say>Hello</Say></Response>",
              error: null,
              answerUse: "xml",
            },
            { type: "twiml", at: "2026-11-22T10:00:00.084Z", twiml: "<Response><Say>Hello</Say></Response>" },
            {
              type: "request",
              at: "2026-11-22T10:01:01.000Z",
              kind: "status",
              callStatus: "completed",
              sequenceNumber: 3,
            },
            {
              type: "event",
              at: "2026-11-22T10:01:01.000Z",
              deliveryId: exampleDelivery.id,
              eventType: "call.ended",
              url: exampleDelivery.url,
              status: "DELIVERED",
              attemptCount: 1,
            },
            { type: "usage", at: "2026-11-22T10:01:01.000Z", billedMinutes: 2, costBreakdown: exampleCostBreakdown },
          ],
          recordings: [],
        },
      },
    },
  }).query(({ ctx, input }) => getCall({ accountId: ctx.auth.account.id, callSid: input.callSid })),
  hangup: restProcedure(unsuspendedProcedure, {
    method: "POST",
    path: "/api/calls/:callSid/hangup",
    needs: "write",
    summary:
      "Hang up a call that has not ended (Twilio's call update, Status=completed, or canceled before it is answered); the final status follows from Twilio as usual",
    errors: CONTROL_ERRORS,
    input: ZHangupInput,
    output: ZGetCallOutput,
    examples: { response: exampleLiveCallAfter("hangup", { status: "completed" }) },
  }).mutation(({ ctx, input }) => hangupCall(who(ctx), input.callSid)),
  redirect: restProcedure(unsuspendedProcedure, {
    method: "POST",
    path: "/api/calls/:callSid/redirect",
    needs: "write",
    summary: "A live call continues now with this TwiML, or these actions (Twilio's call update with Twiml)",
    errors: CONTROL_ERRORS,
    input: ZRedirectInput,
    output: ZGetCallOutput,
    examples: {
      request: { actions: [{ say: "Please hold while we find an agent." }, { pause: 30 }] },
      response: exampleLiveCallAfter("redirect", {
        twiml:
          '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Please hold while we find an agent.</Say><Pause length="30"/></Response>',
      }),
    },
  }).mutation(({ ctx, input }) => redirectCall(who(ctx), input)),
  transfer: restProcedure(unsuspendedProcedure, {
    method: "POST",
    path: "/api/calls/:callSid/transfer",
    needs: "write",
    summary:
      "Transfer a live call to a number or SIP URI, with an optional whisper to the callee; its result comes as call.transferred or call.transfer_failed, and on failure the onFailure actions keep the caller on the line",
    errors: CONTROL_ERRORS,
    input: ZTransferInput,
    output: ZGetCallOutput,
    examples: {
      request: {
        to: "+14155550199",
        whisper: "Caller asking about order A-17",
        timeout: 20,
        onFailure: [{ say: "Nobody is free right now; we will call you back." }, { hangup: true }],
      },
      response: exampleLiveCallAfter("transfer", {
        to: "+14155550199",
        callerId: "+14155550123",
        timeout: 20,
        whisper: "Caller asking about order A-17",
      }),
    },
  }).mutation(({ ctx, input }) => transferCall(who(ctx), input)),
  recording: restProcedure(unsuspendedProcedure, {
    method: "POST",
    path: "/api/calls/:callSid/recording",
    needs: "write",
    summary:
      "Start, pause, resume or stop recording a live call (Twilio's call Recordings resource); recording.completed or recording.failed follows",
    errors: CONTROL_ERRORS,
    input: ZRecordingInput,
    output: ZRecordingOutput,
    examples: {
      request: { action: "start", channels: "dual" },
      response: { recording: { sid: "RE0123456789abcdef0123456789abcdef", status: "in-progress" } },
    },
  }).mutation(({ ctx, input }) => controlRecording(who(ctx), input)),
};
