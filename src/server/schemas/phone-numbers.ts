import { z } from "zod";
import { zCallbackUrl, type CallbackUrlPolicyOptions } from "../webhooks/http/url-policy";
import { CALLBACK_FIELD } from "./callback-fields";
import { ZId, ZTimestamp } from "./common";
import { US_E164, US_E164_RULE } from "./e164";

export { US_E164 };

export const ZUsPhoneNumber = z
  .string()
  .trim()
  .regex(US_E164, { message: "must be a US number in E.164 format, like +14155550123" })
  .describe(US_E164_RULE);

export const ZPhoneNumber = z.object({
  id: ZId,
  phoneNumber: z.string().describe(`The number, ${US_E164_RULE}`),
  onCallStartUrl: z.string().describe(CALLBACK_FIELD.onCallStartUrl),
  onCallEndUrl: z.string().describe(CALLBACK_FIELD.onCallEndUrl),
  onErrorUrl: z.string().nullable().describe(CALLBACK_FIELD.onErrorUrl),
  isActive: z.boolean().describe("true while registered; a released number is no longer listed"),
  verified: z.boolean().describe("Proven an incoming number of the account's connected Twilio account"),
  twilioConfigured: z
    .boolean()
    .describe("Its voice URL and status callback were set to engineVoiceUrl at Twilio by Routekit"),
  createdAt: ZTimestamp,
});
export const ZPhoneNumberOutput = z.object({ phoneNumber: ZPhoneNumber.describe("The number") });
export const ZListPhoneNumbersOutput = z.object({
  phoneNumbers: z.array(ZPhoneNumber).describe("The account's numbers, oldest first"),
});
export const ZPhoneNumberIdInput = z.object({
  id: ZId.describe("The number's id, from POST or GET /api/phone-numbers"),
});
export const ZDeletePhoneNumberOutput = z.object({
  deleted: z.literal(true).describe("The number is released: anyone may register it again; its usage history stays"),
});

/**
 * Inputs depend on the callback URL policy (CALLBACK_ALLOW_PRIVATE): the server
 * builds them from its configuration, the dashboard from what the server tells it.
 */
export function phoneNumberInputSchemas(policy: () => CallbackUrlPolicyOptions) {
  const url = zCallbackUrl(policy);
  return {
    create: z.object({
      phoneNumber: ZUsPhoneNumber,
      onCallStartUrl: url.describe(CALLBACK_FIELD.onCallStartUrl),
      onCallEndUrl: url.describe(CALLBACK_FIELD.onCallEndUrl),
      onErrorUrl: url.nullish().describe(CALLBACK_FIELD.onErrorUrl),
      configureTwilio: z
        .boolean()
        .optional()
        .describe(
          "With a Twilio connection: set the number's voice URL and status callback to engineVoiceUrl at Twilio (default true)",
        ),
    }),
    // Omitted fields stay as they are; `onErrorUrl: null` clears it.
    update: z.object({
      id: ZId.describe("The number's id"),
      onCallStartUrl: url.optional().describe(`${CALLBACK_FIELD.onCallStartUrl} Omitted: unchanged.`),
      onCallEndUrl: url.optional().describe(`${CALLBACK_FIELD.onCallEndUrl} Omitted: unchanged.`),
      onErrorUrl: url
        .nullable()
        .optional()
        .describe(`${CALLBACK_FIELD.onErrorUrl} Omitted: unchanged; null clears it.`),
      configureTwilio: z
        .literal(true)
        .optional()
        .describe(
          "With a Twilio connection: prove the number is yours there and point it at engineVoiceUrl (for numbers registered before connecting, or not repointed)",
        ),
    }),
  };
}
export type TCreatePhoneNumberInput = z.infer<ReturnType<typeof phoneNumberInputSchemas>["create"]>;
export type TUpdatePhoneNumberInput = z.infer<ReturnType<typeof phoneNumberInputSchemas>["update"]>;
