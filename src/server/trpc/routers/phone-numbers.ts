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
import { createPhoneNumber } from "../../services/phone-numbers/register-phone-number";
import { deletePhoneNumber } from "../../services/phone-numbers/release-phone-number";
import { simulateCall } from "../../engine/simulate-call-request";
import { restProcedure } from "../../rest/rest-procedure";
import { apiProcedure, paidProcedure, unsuspendedProcedure } from "../init";

const inputs = phoneNumberInputSchemas(serverCallbackPolicy, SERVER_ANSWER_CHECKS);

export const phoneNumbers = {
  create: restProcedure(paidProcedure, {
    method: "POST",
    path: "/api/phone-numbers",
    needs: "write",
    standing: "paid",
    status: 201,
    summary: "Register a phone number (with a Twilio connection: one you own there, set up at Twilio)",
    errors: [402, 403, 409, 502],
    input: inputs.create,
    output: ZPhoneNumberOutput,
  }).mutation(({ ctx, input }) => createPhoneNumber({ accountId: ctx.auth.account.id, input })),
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/phone-numbers",
    needs: "read",
    summary: "List phone numbers, oldest first",
    output: ZListPhoneNumbersOutput,
  }).query(({ ctx }) => listPhoneNumbers({ accountId: ctx.auth.account.id })),
  get: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/phone-numbers/:id",
    needs: "read",
    summary: "One phone number",
    errors: [403],
    input: ZPhoneNumberIdInput,
    output: ZPhoneNumberOutput,
  }).query(({ ctx, input }) => getPhoneNumber({ accountId: ctx.auth.account.id, id: input.id })),
  fallbackPreview: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/phone-numbers/:id/fallback-preview",
    needs: "read",
    summary:
      "The TwiML a caller would get when onCallStartUrl fails: the stored fallback and lastResort, rendered without calling anything",
    errors: [403],
    input: ZPhoneNumberIdInput,
    output: ZFallbackPreviewOutput,
  }).query(({ ctx, input }) => previewFallback({ accountId: ctx.auth.account.id, id: input.id })),
  simulateCall: restProcedure(paidProcedure, {
    method: "POST",
    path: "/api/phone-numbers/:id/simulate-call",
    needs: "write",
    standing: "paid",
    summary:
      "Try a number without a phone: runs the engine's whole inbound flow for it as if Twilio had called (call.started with `data.test = true` to the number's URL, the answer checked, fallbacks as configured) and answers the call with its timeline and the TwiML Twilio would have received. The call is `test: true`: never billed, never counted in usage or limits, never sent to Twilio, listed only with GET /api/calls?test=true. At most 10 a minute per account",
    errors: [402, 403, 404, 429],
    input: ZSimulateCallInput,
    output: ZSimulateCallOutput,
  }).mutation(({ ctx, input }) => simulateCall({ accountId: ctx.auth.account.id, id: input.id, from: input.from })),
  update: restProcedure(unsuspendedProcedure, {
    method: "PATCH",
    path: "/api/phone-numbers/:id",
    needs: "write",
    standing: "unsuspended",
    summary: "Change a number's callback URLs, or set it up at Twilio (`configureTwilio: true`)",
    errors: [403, 502],
    input: inputs.update,
    output: ZPhoneNumberOutput,
  }).mutation(({ ctx, input }) => updatePhoneNumber({ accountId: ctx.auth.account.id, input })),
  delete: restProcedure(unsuspendedProcedure, {
    method: "DELETE",
    path: "/api/phone-numbers/:id",
    needs: "write",
    standing: "unsuspended",
    summary: "Release a phone number",
    errors: [403],
    input: ZPhoneNumberIdInput,
    output: ZDeletePhoneNumberOutput,
  }).mutation(({ ctx, input }) => deletePhoneNumber({ accountId: ctx.auth.account.id, id: input.id })),
};
