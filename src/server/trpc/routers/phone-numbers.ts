import { serverCallbackPolicy } from "../../callbacks/server-callback-policy";
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
import { apiProcedure, paidProcedure, router, unsuspendedProcedure } from "../init";

const inputs = phoneNumberInputSchemas(serverCallbackPolicy);

export const phoneNumbersRouter = router({
  create: paidProcedure
    .input(inputs.create)
    .output(ZPhoneNumberOutput)
    .mutation(({ ctx, input }) => createPhoneNumber({ accountId: ctx.auth.account.id, input })),
  list: apiProcedure.output(ZListPhoneNumbersOutput).query(({ ctx }) => listPhoneNumbers({ accountId: ctx.auth.account.id })),
  get: apiProcedure
    .input(ZPhoneNumberIdInput)
    .output(ZPhoneNumberOutput)
    .query(({ ctx, input }) => getPhoneNumber({ accountId: ctx.auth.account.id, id: input.id })),
  update: unsuspendedProcedure
    .input(inputs.update)
    .output(ZPhoneNumberOutput)
    .mutation(({ ctx, input }) => updatePhoneNumber({ accountId: ctx.auth.account.id, input })),
  delete: unsuspendedProcedure
    .input(ZPhoneNumberIdInput)
    .output(ZDeletePhoneNumberOutput)
    .mutation(({ ctx, input }) => deletePhoneNumber({ accountId: ctx.auth.account.id, id: input.id })),
});
