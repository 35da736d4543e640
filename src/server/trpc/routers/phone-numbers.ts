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
import { previewFallback } from "../../services/phone-numbers/fallback-preview";
import { registerPhoneNumber } from "../../services/phone-numbers/register-phone-number";
import { deletePhoneNumber } from "../../services/phone-numbers/release-phone-number";
import { simulateCall } from "../../engine/simulate-call-request";
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
  }).mutation(({ ctx, input }) => registerPhoneNumber({ accountId: ctx.auth.account.id, input })),
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
    summary: "Change a number's callback URLs, or set it up at Twilio (`configureTwilio: true`)",
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
  }).mutation(({ ctx, input }) => updatePhoneNumber({ accountId: ctx.auth.account.id, input })),
  delete: restProcedure(unsuspendedProcedure, {
    method: "DELETE",
    path: "/api/phone-numbers/:id",
    needs: "write",
    summary: "Release a phone number",
    input: ZPhoneNumberIdInput,
    output: ZDeletePhoneNumberOutput,
    examples: { response: { deleted: true } },
  }).mutation(({ ctx, input }) => deletePhoneNumber({ accountId: ctx.auth.account.id, id: input.id })),
};
