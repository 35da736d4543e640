import { z } from "zod";
import { zCallbackUrl, type CallbackUrlPolicyOptions } from "../callbacks/url-policy";
import { ZId, ZTimestamp } from "./common";
import { US_E164 } from "./e164";

export { US_E164 };
export const ZUsPhoneNumber = z
  .string()
  .trim()
  .regex(US_E164, { message: "must be a US number in E.164 format, like +14155550123" });

export const ZPhoneNumber = z.object({
  id: ZId,
  phoneNumber: z.string(),
  onCallStartUrl: z.string(),
  onCallEndUrl: z.string(),
  onErrorUrl: z.string().nullable(),
  isActive: z.boolean(),
  verified: z.boolean().describe("Proven an incoming number of the account's connected Twilio account"),
  twilioConfigured: z.boolean().describe("Its voice URL and status callback were set to engineVoiceUrl at Twilio by Routekit"),
  createdAt: ZTimestamp,
});
export const ZPhoneNumberOutput = z.object({ phoneNumber: ZPhoneNumber });
export const ZListPhoneNumbersOutput = z.object({ phoneNumbers: z.array(ZPhoneNumber) });
export const ZPhoneNumberIdInput = z.object({ id: ZId });
export const ZDeletePhoneNumberOutput = z.object({ deleted: z.literal(true) });

/**
 * Inputs depend on the callback URL policy (CALLBACK_ALLOW_PRIVATE): the server
 * builds them from its configuration, the dashboard from what the server tells it.
 */
export function phoneNumberInputSchemas(policy: () => CallbackUrlPolicyOptions) {
  const url = zCallbackUrl(policy);
  return {
    create: z.object({
      phoneNumber: ZUsPhoneNumber,
      onCallStartUrl: url,
      onCallEndUrl: url,
      onErrorUrl: url.nullish(),
      configureTwilio: z
        .boolean()
        .optional()
        .describe("With a Twilio connection: set the number's voice URL and status callback to engineVoiceUrl at Twilio (default true)"),
    }),
    // Omitted fields stay as they are; `onErrorUrl: null` clears it.
    update: z.object({
      id: ZId,
      onCallStartUrl: url.optional(),
      onCallEndUrl: url.optional(),
      onErrorUrl: url.nullable().optional(),
      configureTwilio: z
        .literal(true)
        .optional()
        .describe("With a Twilio connection: prove the number is yours there and point it at engineVoiceUrl (for numbers registered before connecting, or not repointed)"),
    }),
  };
}
export type TCreatePhoneNumberInput = z.infer<ReturnType<typeof phoneNumberInputSchemas>["create"]>;
export type TUpdatePhoneNumberInput = z.infer<ReturnType<typeof phoneNumberInputSchemas>["update"]>;
