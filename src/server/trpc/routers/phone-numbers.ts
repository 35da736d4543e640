import { serverCallbackPolicy } from "../../webhooks/http/server-callback-policy";
import { SERVER_ANSWER_CHECKS } from "../../services/answers/answer-checks";
import {
  ZDeletePhoneNumberOutput,
  ZFallbackPreviewOutput,
  ZListPhoneNumbersOutput,
  ZPhoneNumberIdInput,
  ZPhoneNumberOutput,
  ZSimulateCallInput,
  ZSimulateCallOutput,
  phoneNumberInputSchemas,
} from "../../../shared/schemas/phone-numbers";
import { getPhoneNumber, listPhoneNumbers, updatePhoneNumber } from "../../services/phone-numbers/phone-numbers";
import { ZShadowReportInput, ZShadowReportOutput } from "../../../shared/schemas/shadow";
import { shadowReport } from "../../services/shadow/shadow-report";
import { previewFallback } from "../../services/phone-numbers/fallback-preview";
import { registerPhoneNumber } from "../../services/phone-numbers/register-phone-number";
import { deletePhoneNumber } from "../../services/phone-numbers/release-phone-number";
import { simulateCall } from "../../engine/simulate-call-request";
import { originOf } from "../../services/audit/record-audit";
import { restProcedure } from "../rest-procedure";
import { apiProcedure, paidProcedure, unsuspendedProcedure } from "../init";
import { exampleCall, exampleDelivery, exampleNumber, exampleTime } from "./example-values";

const inputs = phoneNumberInputSchemas(serverCallbackPolicy, SERVER_ANSWER_CHECKS);

export const phoneNumbers = {
  create: restProcedure(paidProcedure, {
    method: "POST",
    path: "/api/phone-numbers",
    needs: "write",
    status: 201,
    summary: "Register a phone number (with a Twilio connection: one you own there, set up at Twilio)",
    errors: [409, 502],
    input: inputs.create,
    output: ZPhoneNumberOutput,
    examples: {
      request: {
        phoneNumber: exampleNumber.phoneNumber,
        onCallStartUrl: exampleNumber.onCallStartUrl,
        onCallEndUrl: exampleNumber.onCallEndUrl,
        onErrorUrl: exampleNumber.onErrorUrl,
        answerTimeoutMs: exampleNumber.answerTimeoutMs,
        fallback: exampleNumber.fallback,
        lastResort: exampleNumber.lastResort,
      },
      response: { phoneNumber: exampleNumber },
    },
  }).mutation(({ ctx, input }) =>
    registerPhoneNumber({ accountId: ctx.auth.account.id, input, origin: originOf(ctx.auth, ctx.ip) }),
  ),
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/phone-numbers",
    needs: "read",
    summary: "List phone numbers, oldest first",
    output: ZListPhoneNumbersOutput,
    examples: { response: { phoneNumbers: [exampleNumber] } },
  }).query(({ ctx }) => listPhoneNumbers({ accountId: ctx.auth.account.id })),
  get: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/phone-numbers/:id",
    needs: "read",
    summary: "One phone number",
    input: ZPhoneNumberIdInput,
    output: ZPhoneNumberOutput,
    examples: { response: { phoneNumber: exampleNumber } },
  }).query(({ ctx, input }) => getPhoneNumber({ accountId: ctx.auth.account.id, id: input.id })),
  fallbackPreview: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/phone-numbers/:id/fallback-preview",
    needs: "read",
    summary:
      "The TwiML a caller would get when onCallStartUrl fails: the stored fallback and lastResort, rendered without calling anything",
    input: ZPhoneNumberIdInput,
    output: ZFallbackPreviewOutput,
    examples: {
      response: {
        preview: {
          first: { takenOverBy: "fallback-url", url: "https://backup.example.com/twilio/start", twiml: null },
          thenIfItFails: {
            takenOverBy: "last-resort",
            url: null,
            twiml:
              '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Sorry, we cannot take your call right now.</Say><Hangup/></Response>',
          },
        },
      },
    },
  }).query(({ ctx, input }) => previewFallback({ accountId: ctx.auth.account.id, id: input.id })),
  shadowReport: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/phone-numbers/:id/shadow",
    needs: "read",
    summary:
      "The number's shadow backend (docs/decisions.md §23) and how its answers compared with the primary's: counts and latencies since `since`, and the last 100 mirrored calls that were different or failed, newest first. Kept 30 days",
    input: ZShadowReportInput,
    output: ZShadowReportOutput,
    examples: {
      response: {
        shadow: {
          onCallStartUrl: "https://v2.api.example.com/twilio/start",
          sampleRate: 1,
          until: null,
          setAt: exampleTime,
        },
        report: {
          since: exampleTime,
          mirrored: 120,
          skipped: 0,
          same: 117,
          different: 2,
          failed: 1,
          primaryLatencyMs: { p50: 84, p99: 310 },
          shadowLatencyMs: { p50: 95, p99: 5000 },
        },
        calls: [
          {
            callSid: "CA0123456789abcdef0123456789abcdef",
            startedAt: exampleTime,
            outcome: "different",
            primary: {
              answer: "xml",
              twiml: "<Response><Say>Hello</Say></Response>",
              latencyMs: 84,
            },
            shadow: {
              answer: "json-actions",
              twiml: '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Hello there</Say></Response>',
              latencyMs: 95,
            },
          },
        ],
      },
    },
  }).query(({ ctx, input }) => shadowReport({ accountId: ctx.auth.account.id, id: input.id, since: input.since })),
  simulateCall: restProcedure(paidProcedure, {
    method: "POST",
    path: "/api/phone-numbers/:id/simulate-call",
    needs: "write",
    summary:
      "Try a number without a phone: runs the engine's whole inbound flow for it as if Twilio had called (call.started with `data.test = true` to the number's URL, the answer checked, fallbacks as configured) and answers the call with its timeline and the TwiML Twilio would have received. The call is `test: true`: never billed, never counted in usage or limits, never sent to Twilio, listed only with GET /api/calls?test=true. At most 10 a minute per account",
    errors: [404],
    input: ZSimulateCallInput,
    output: ZSimulateCallOutput,
    examples: {
      request: { from: "+14155550100" },
      response: {
        call: {
          ...exampleCall({ answer: "xml", error: null }),
          callSid: "CA5d41402abc4b2a76b9719d911017c592",
          endedAt: "2026-11-22T10:00:00.120Z",
          durationSeconds: 0,
          billedMinutes: 0,
          costBreakdown: null,
          sipResponseCode: null,
          test: true,
          timeline: [
            { type: "request", at: exampleTime, kind: "voice", callStatus: "ringing", sequenceNumber: null },
            {
              type: "call.started",
              at: exampleTime,
              deliveryId: "cmwra4z2c00052c7dq7ds1m2n",
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
              type: "event",
              at: "2026-11-22T10:00:00.120Z",
              deliveryId: exampleDelivery.id,
              eventType: "call.ended",
              url: exampleDelivery.url,
              status: "PENDING",
              attemptCount: 0,
            },
          ],
          recordings: [],
        },
        twiml: "<Response><Say>Hello</Say></Response>",
      },
    },
  }).mutation(({ ctx, input }) => simulateCall({ accountId: ctx.auth.account.id, id: input.id, from: input.from })),
  update: restProcedure(unsuspendedProcedure, {
    method: "PATCH",
    path: "/api/phone-numbers/:id",
    needs: "write",
    summary:
      "Change a number's callback URLs, answer policy, cap or shadow backend (`shadow`, docs/decisions.md §23), or set it up at Twilio (`configureTwilio: true`)",
    errors: [502],
    input: inputs.update,
    output: ZPhoneNumberOutput,
    examples: {
      request: { onErrorUrl: null, fallback: { actions: [{ say: "Please hold." }, { dial: "+14155550199" }] } },
      response: {
        phoneNumber: {
          ...exampleNumber,
          onErrorUrl: null,
          fallback: { actions: [{ say: "Please hold." }, { dial: "+14155550199" }] },
        },
      },
    },
  }).mutation(({ ctx, input }) =>
    updatePhoneNumber({ accountId: ctx.auth.account.id, input, origin: originOf(ctx.auth, ctx.ip) }),
  ),
  delete: restProcedure(unsuspendedProcedure, {
    method: "DELETE",
    path: "/api/phone-numbers/:id",
    needs: "write",
    summary: "Release a phone number",
    input: ZPhoneNumberIdInput,
    output: ZDeletePhoneNumberOutput,
    examples: { response: { deleted: true } },
  }).mutation(({ ctx, input }) =>
    deletePhoneNumber({ accountId: ctx.auth.account.id, id: input.id, origin: originOf(ctx.auth, ctx.ip) }),
  ),
};
