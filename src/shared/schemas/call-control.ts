import { z } from "zod";
import { ZTimestamp } from "./common";
import { E164 } from "./e164";
import {
  ACTIONS_MAX_ITEMS,
  boundedInt,
  boundedString,
  callSecondsInt,
  CODE_MAX_CHARS,
  E164_MAX_CHARS,
  ID_MAX_CHARS,
  TRANSFER_TARGET_MAX_CHARS,
  TWIML_MAX_CHARS,
  TWILIO_SID_CHARS,
  URL_MAX_CHARS,
} from "./bounds";

/** docs/decisions.md §13: the live-call commands' inputs and answers. */
const ZCallSid = z.string().trim().min(1).max(ID_MAX_CHARS).describe("Twilio's call SID (CA…)");
const SIP_URI = /^sips?:[^\s<>"]{1,250}$/i;

const ZActions = z
  .array(z.unknown())
  .min(1)
  .max(ACTIONS_MAX_ITEMS)
  .describe(
    'Actions (docs/decisions.md §12): `{ "say": "…" }`, `{ "play": "https://…" }`, `{ "pause": 2 }`, `{ "dial": "+1…" }`, `{ "hangup": true }`',
  );

export const ZHangupInput = z.object({ callSid: ZCallSid });

export const ZRedirectInput = z
  .object({
    callSid: ZCallSid,
    twiml: z
      .string()
      .min(1)
      .max(TWIML_MAX_CHARS)
      .optional()
      .describe("A TwiML `<Response>` document the call continues with now"),
    actions: ZActions.optional().describe("Or actions the call continues with now, built into TwiML"),
  })
  .superRefine((v, ctx) => {
    if ((v.twiml === undefined) === (v.actions === undefined))
      ctx.addIssue({ code: "custom", path: ["twiml"], message: "give exactly one of twiml and actions" });
  });

export const ZTransferInput = z.object({
  callSid: ZCallSid,
  to: z
    .string()
    .trim()
    .max(TRANSFER_TARGET_MAX_CHARS)
    .refine((s) => E164.test(s) || SIP_URI.test(s), { error: "must be an E.164 number or a sip: URI" })
    .describe("Where to transfer the call: an E.164 number or a sip: URI"),
  callerId: z
    .string()
    .trim()
    .max(E164_MAX_CHARS)
    .regex(E164, { error: "must be an E.164 number" })
    .optional()
    .describe("The caller ID the callee sees: a number of this account (default the call's own number)"),
  timeout: boundedInt(5, 60).default(20).describe("Seconds to let the callee's phone ring, 5–60 (default 20)"),
  whisper: z
    .string()
    .trim()
    .min(1)
    .max(1000)
    .optional()
    .describe("Said to the callee when they answer, before the caller is connected"),
  onFailure: ZActions.optional().describe(
    "What the caller hears when the transfer fails (busy, no answer, failed): the caller stays on the line. Default: the built-in apology",
  ),
});

const RECORDING_ACTIONS = ["start", "pause", "resume", "stop"] as const;
export const ZRecordingInput = z.object({
  callSid: ZCallSid,
  action: z.enum(RECORDING_ACTIONS).describe("start a recording, or pause, resume or stop the call's current one"),
  channels: z
    .enum(["mono", "dual"])
    .default("dual")
    .describe("start: one channel for both parties (mono) or one each (dual, default)"),
});

// Twilio's vocabulary, not a Routekit call status: a string, so the reference keeps one enum per family.
export const ZRecordingStatus = boundedString(CODE_MAX_CHARS).describe(
  "Twilio's recording status: in-progress, paused, stopped, processing, completed, absent or failed",
);

export const ZRecordingOutput = z.object({
  recording: z
    .object({
      sid: boundedString(TWILIO_SID_CHARS).describe("Twilio's recording SID (RE…)"),
      status: ZRecordingStatus,
    })
    .describe("The recording the command started or changed"),
});

export const ZCallRecording = z.object({
  sid: boundedString(TWILIO_SID_CHARS).describe("Twilio's recording SID (RE…)"),
  status: ZRecordingStatus,
  channels: z.union([z.literal(1), z.literal(2)]).describe("1 (mono) or 2 (dual)"),
  url: boundedString(URL_MAX_CHARS)
    .nullable()
    .describe("Twilio's RecordingUrl once completed (fetch it with your Twilio credentials)"),
  durationSeconds: callSecondsInt().nullable().describe("Length in seconds once completed"),
  startedAt: ZTimestamp.describe("When it was started"),
  updatedAt: ZTimestamp.describe("When its status last changed"),
});

export type TTransferInput = z.infer<typeof ZTransferInput>;
export type TRedirectInput = z.infer<typeof ZRedirectInput>;
export type TRecordingInput = z.infer<typeof ZRecordingInput>;
