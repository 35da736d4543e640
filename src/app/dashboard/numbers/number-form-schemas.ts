import { z } from "zod";
import type { CallbackUrlPolicyOptions } from "@/server/webhooks/http/url-policy";
import { phoneNumberInputSchemas } from "@/server/schemas/phone-numbers";

/** What the number forms hold: text boxes, so every value is a string. */
export type NumberFormValues = {
  phoneNumber: string;
  onCallStartUrl: string;
  onCallEndUrl: string;
  onErrorUrl: string;
};
export type UrlFormValues = Omit<NumberFormValues, "phoneNumber">;

// An empty optional box means "no URL": the API's schema takes that as absent (create) or null (edit, which clears it).
const blankAs =
  <T>(value: T) =>
  (v: unknown) =>
    typeof v === "string" && v.trim() === "" ? value : v;

/** The API's create schema, reading the form's strings. */
export function createNumberFormSchema(policy: CallbackUrlPolicyOptions) {
  const create = phoneNumberInputSchemas(() => policy).create;
  return create.extend({ onErrorUrl: z.preprocess(blankAs(undefined), create.shape.onErrorUrl) });
}

/** The callback URLs alone (the Twilio page registers many numbers with one set). */
export function callbackUrlsFormSchema(policy: CallbackUrlPolicyOptions) {
  return createNumberFormSchema(policy).omit({ phoneNumber: true, configureTwilio: true });
}

/** The API's update schema for the three URLs; all required but the error URL, which an empty box clears. */
export function editNumberFormSchema(policy: CallbackUrlPolicyOptions) {
  const update = phoneNumberInputSchemas(() => policy).update;
  const create = phoneNumberInputSchemas(() => policy).create;
  return z.object({
    onCallStartUrl: create.shape.onCallStartUrl,
    onCallEndUrl: create.shape.onCallEndUrl,
    onErrorUrl: z.preprocess(blankAs(null), update.shape.onErrorUrl.unwrap()),
  });
}
