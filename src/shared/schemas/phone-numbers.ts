import { z } from "zod";
import { zCallbackUrl, type CallbackUrlPolicyOptions } from "../url-policy";
import { type AnswerChecks, answerPolicyInputFields, ZAnswerPolicyOutput } from "./answer-policy";
import { CALLBACK_FIELD } from "./callback-fields";
import { ZTakenOverBy } from "./enums";
import { ZId, ZTimestamp } from "./common";
import { E164, E164_RULE, US_E164, US_E164_RULE } from "./e164";
import { ZGetCallOutput } from "./calls";
import { ZDailyMinuteCap } from "./limits";
import {
  boundedString,
  countInt,
  E164_MAX_CHARS,
  outputId,
  outputUrl,
  PHONE_NUMBERS_MAX_ITEMS,
  TWIML_MAX_CHARS,
} from "./bounds";
import { ZShadow, zShadowInput } from "./shadow";

const LISTEN_FIELD =
  "While a `routekit listen` of the account is connected (docs/api.md, GET /api/listen), this number's events go to the listeners instead of its URLs";

export const ZUsPhoneNumber = z
  .string()
  .trim()
  .max(E164_MAX_CHARS)
  .regex(US_E164, { message: "must be a US number in E.164 format, like +14155550123" })
  .describe(US_E164_RULE);

export const ZPhoneNumber = z
  .object({
    id: outputId(),
    phoneNumber: boundedString(E164_MAX_CHARS).regex(US_E164).describe(`The number, ${US_E164_RULE}`),
    onCallStartUrl: outputUrl().describe(CALLBACK_FIELD.onCallStartUrl),
    onCallEndUrl: outputUrl().describe(CALLBACK_FIELD.onCallEndUrl),
    onErrorUrl: outputUrl().nullable().describe(CALLBACK_FIELD.onErrorUrl),
    ...ZAnswerPolicyOutput,
    isActive: z.boolean().describe("true while registered; a released number is no longer listed"),
    verified: z.boolean().describe("Proven an incoming number of the account's connected Twilio account"),
    twilioConfigured: z
      .boolean()
      .describe("Its voice URL and status callback were set to engineVoiceUrl at Twilio by Routekit"),
    dailyMinuteCap: ZDailyMinuteCap,
    listen: z.boolean().describe(LISTEN_FIELD),
    shadow: ZShadow.nullable().describe(
      "docs/decisions.md §23: the number's shadow backend, whose answers are compared and never used; null when it has none",
    ),
    minutesToday: countInt().describe(
      "Billed minutes of this number's calls that ended today (UTC), as dailyMinuteCap counts them",
    ),
    createdAt: ZTimestamp,
  })
  .meta({ id: "PhoneNumber" });
export const ZPhoneNumberOutput = z.object({ phoneNumber: ZPhoneNumber.describe("The number") });
export const ZListPhoneNumbersOutput = z.object({
  phoneNumbers: z
    .array(ZPhoneNumber)
    .max(PHONE_NUMBERS_MAX_ITEMS)
    .describe(`The account's numbers, oldest first (an account holds at most ${PHONE_NUMBERS_MAX_ITEMS})`),
});
export const ZPhoneNumberIdInput = z.object({
  id: ZId.describe("The number's id, from POST or GET /api/phone-numbers"),
});
/** docs/decisions.md §21: POST /api/phone-numbers/{id}/simulate-call. */
export const ZSimulateCallInput = ZPhoneNumberIdInput.extend({
  from: z
    .string()
    .trim()
    .max(E164_MAX_CHARS)
    .regex(E164, { message: "must be an E.164 number, like +14155550123" })
    .optional()
    .describe(`The caller, ${E164_RULE}; default +15005550006`),
  direction: z.literal("inbound").optional().describe("Only `inbound` (the default): a call to this number"),
});
export const ZSimulateCallOutput = z.object({
  call: ZGetCallOutput.shape.call.describe(
    "The simulated call (`test: true`) with its timeline, as GET /api/calls/{callSid} answers it",
  ),
  twiml: boundedString(TWIML_MAX_CHARS).describe("The TwiML Twilio would have received for the call's voice request"),
});

export const ZDeletePhoneNumberOutput = z.object({
  deleted: z.literal(true).describe("The number is released: anyone may register it again; its usage history stays"),
});

/**
 * Inputs depend on the callback URL policy (CALLBACK_ALLOW_PRIVATE): the server
 * builds them from its configuration, the dashboard from what the server tells it.
 */
export function phoneNumberInputSchemas(policy: () => CallbackUrlPolicyOptions, checks?: AnswerChecks) {
  const url = zCallbackUrl(policy);
  const answerPolicy = answerPolicyInputFields(policy, checks);
  return {
    create: z.object({
      phoneNumber: ZUsPhoneNumber,
      onCallStartUrl: url.describe(CALLBACK_FIELD.onCallStartUrl),
      onCallEndUrl: url.describe(CALLBACK_FIELD.onCallEndUrl),
      onErrorUrl: url.nullish().describe(CALLBACK_FIELD.onErrorUrl),
      ...answerPolicy,
      dailyMinuteCap: ZDailyMinuteCap.optional().describe(`${ZDailyMinuteCap.description} Omitted: null.`),
      listen: z.boolean().optional().describe(`${LISTEN_FIELD}. Omitted: false.`),
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
      ...answerPolicy,
      dailyMinuteCap: ZDailyMinuteCap.optional().describe(
        `${ZDailyMinuteCap.description} Omitted: unchanged; null clears it.`,
      ),
      listen: z.boolean().optional().describe(`${LISTEN_FIELD}. Omitted: unchanged.`),
      shadow: zShadowInput(policy),
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

const ZFallbackStep = z.object({
  takenOverBy: ZTakenOverBy.exclude(["retry"]).describe("What would decide the call (as call.error's takenOverBy)"),
  url: outputUrl().nullable().describe("fallback-url: the URL that would be asked; null otherwise"),
  twiml: boundedString(TWIML_MAX_CHARS)
    .nullable()
    .describe("The TwiML the caller would get; null for a URL (its answer decides)"),
});
export const ZFallbackPreviewOutput = z.object({
  preview: z
    .object({
      first: ZFallbackStep.describe("What decides the call when onCallStartUrl's answer cannot be used"),
      thenIfItFails: ZFallbackStep.nullable().describe(
        "When `first` is a fallback URL: what the caller gets if it fails too (lastResort or the apology); null otherwise",
      ),
    })
    .describe("Rendered from the stored fallback and lastResort; nothing is called"),
});
