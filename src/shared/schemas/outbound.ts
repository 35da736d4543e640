import { z } from "zod";
import type { CallbackUrlPolicyOptions } from "../url-policy";
import { zCallbackUrl } from "../url-policy";
import { type AnswerChecks, answerPolicyInputFields } from "./answer-policy";
import { CALLBACK_FIELD } from "./callback-fields";
import { E164, E164_RULE } from "./e164";
import { ZUsPhoneNumber } from "./phone-numbers";
import {
  boundedRecord,
  boundedString,
  E164_MAX_CHARS,
  METADATA_MAX_BYTES,
  outputCode,
  TWILIO_SID_CHARS,
} from "./bounds";

export function outboundInputSchema(policy: () => CallbackUrlPolicyOptions, checks?: AnswerChecks) {
  const url = zCallbackUrl(policy);
  const answerPolicy = answerPolicyInputFields(policy, checks);
  return z.object({
    to: z
      .string()
      .trim()
      .max(E164_MAX_CHARS)
      .regex(E164, { message: "must be an E.164 number, like +14155550123" })
      .describe(`The number to call, ${E164_RULE}`),
    from: ZUsPhoneNumber.describe("A number registered to your account, US E.164 (like +14155550123)"),
    onCallStartUrl: url.describe(`For this call only: ${CALLBACK_FIELD.onCallStartUrl}`),
    onCallEndUrl: url.describe(`For this call only: ${CALLBACK_FIELD.onCallEndUrl}`),
    onErrorUrl: url.nullish().describe(`For this call only, optional: ${CALLBACK_FIELD.onErrorUrl}`),
    answerTimeoutMs: answerPolicy.answerTimeoutMs.describe(
      "For this call only, optional: milliseconds onCallStartUrl gets to answer, 1000–10000 (default CALLBACK_START_TIMEOUT_MS)",
    ),
    fallback: answerPolicy.fallback.describe(
      "For this call only, optional: { url } | { actions } | { twiml }, what decides the call when onCallStartUrl's answer cannot be used; checked now",
    ),
    lastResort: answerPolicy.lastResort.describe(
      "For this call only, optional: { actions }, what the callee hears when neither onCallStartUrl nor the fallback could decide (default: an apology)",
    ),
    providerAccountSid: z
      .string()
      .trim()
      .max(TWILIO_SID_CHARS)
      .regex(/^AC[0-9a-fA-F]{32}$/, { message: "must be a Twilio Account SID (AC + 32 hex characters)" })
      .describe("The Twilio Account SID that places the call: AC followed by 32 hex characters"),
    providerAuthToken: z
      .string()
      .min(1)
      .max(256)
      .describe(
        "That account's auth token: used to create the call and check Twilio's signatures on it; kept only encrypted while the call lives, never logged or returned",
      ),
    metadata: boundedRecord(METADATA_MAX_BYTES)
      .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= METADATA_MAX_BYTES, {
        message: `must be at most ${METADATA_MAX_BYTES} bytes as JSON`,
      })
      .optional()
      .describe(
        `Any JSON object (at most ${METADATA_MAX_BYTES} bytes), sent back as data.metadata in this call's events`,
      ),
    machineDetection: z
      .enum(["Enable", "DetectMessageEnd"])
      .optional()
      .describe("Twilio's answering machine detection, passed through; the result arrives as answeredBy"),
    timeout: z
      .number()
      .int({ message: "must be a whole number of seconds" })
      .min(5)
      .max(120)
      .meta({ format: "int32" })
      .default(30)
      .describe("Seconds to let the callee's phone ring (5–120, default 30)"),
  });
}
export type TOutboundInput = z.infer<ReturnType<typeof outboundInputSchema>>;

export const ZOutboundOutput = z.object({
  callSid: boundedString(TWILIO_SID_CHARS).describe("Twilio's call SID"),
  status: outputCode().describe("Twilio's status, `queued` at first"),
});
