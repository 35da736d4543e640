import { z } from "zod";
import type { CallbackUrlPolicyOptions } from "../callbacks/url-policy";
import { zCallbackUrl } from "../callbacks/url-policy";
import { E164 } from "./e164";
import { ZUsPhoneNumber } from "./phone-numbers";

export { E164 };
export const MAX_METADATA_BYTES = 4096;

export function outboundInputSchema(policy: () => CallbackUrlPolicyOptions) {
  const url = zCallbackUrl(policy);
  return z.object({
    to: z.string().trim().regex(E164, { message: "must be an E.164 number, like +14155550123" }),
    from: ZUsPhoneNumber.describe("A number registered to your account"),
    onCallStartUrl: url,
    onCallEndUrl: url,
    onErrorUrl: url.nullish(),
    providerAccountSid: z.string().trim().regex(/^AC[0-9a-fA-F]{32}$/, { message: "must be a Twilio Account SID (AC + 32 hex characters)" }),
    providerAuthToken: z.string().min(1).max(256),
    metadata: z
      .record(z.string(), z.unknown())
      .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= MAX_METADATA_BYTES, { message: `must be at most ${MAX_METADATA_BYTES} bytes as JSON` })
      .optional(),
    machineDetection: z.enum(["Enable", "DetectMessageEnd"]).optional(),
    timeout: z.number().int({ message: "must be a whole number of seconds" }).min(5).max(120).default(30).describe("Seconds to let the callee's phone ring"),
  });
}
export type TOutboundInput = z.infer<ReturnType<typeof outboundInputSchema>>;

export const ZOutboundOutput = z.object({
  callSid: z.string().describe("Twilio's call SID"),
  status: z.string().describe("Twilio's status, `queued` at first"),
});
