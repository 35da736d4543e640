import { serverCallbackPolicy } from "../../webhooks/http/server-callback-policy";
import {
  ZDeletePhoneNumberOutput,
  ZListPhoneNumbersOutput,
  ZPhoneNumberIdInput,
  ZPhoneNumberOutput,
  phoneNumberInputSchemas,
} from "../../schemas/phone-numbers";
import { getPhoneNumber, listPhoneNumbers, updatePhoneNumber } from "../../services/phone-numbers/phone-numbers";
import { createPhoneNumber } from "../../services/phone-numbers/register-phone-number";
import { deletePhoneNumber } from "../../services/phone-numbers/release-phone-number";
import { restProcedure } from "../../rest/rest-procedure";
import { apiProcedure, paidProcedure, unsuspendedProcedure } from "../init";

const inputs = phoneNumberInputSchemas(serverCallbackPolicy);

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
