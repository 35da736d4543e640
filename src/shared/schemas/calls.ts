import { z } from "zod";
import { queryInteger, ZQueryTime, ZTimestamp } from "./common";
import { END_REASONS, ERROR_CODES, outcomeList } from "../call-outcomes";
import {
  CALL_ANSWERS,
  CALL_COMMANDS,
  ZCallAnswer,
  ZCallDirection,
  ZCallEndReason,
  ZCallStatus,
  ZDeliveryStatus,
  ZStartAttemptRole,
} from "./enums";
import { ZEventType } from "./events";
import { ZCostBreakdown } from "./usage";
import { ZCallRecording, ZRecordingStatus } from "./call-control";
import {
  boundedInt,
  boundedRecord,
  boundedString,
  CALL_TIMELINE_MAX_ITEMS,
  CALL_RECORDINGS_MAX_ITEMS,
  callMinutesInt,
  callSecondsInt,
  CURSOR_MAX_CHARS,
  DB_INT_MAX,
  httpStatusInt,
  ID_MAX_CHARS,
  latencyMsInt,
  outputCode,
  outputId,
  outputMessage,
  outputUrl,
  PAGE_MAX_ITEMS,
  RESPONSE_EXCERPT_MAX_CHARS,
  STORED_TWIML_MAX_CHARS,
  TRANSFER_TARGET_MAX_CHARS,
  TWILIO_SID_CHARS,
  twilioField,
} from "./bounds";

const ZFilterTime = ZQueryTime;

const ANSWER_LIST = new RegExp(
  `^(?:${CALL_ANSWERS.join("|")})(?:,(?:${CALL_ANSWERS.join("|")})){0,${CALL_ANSWERS.length - 1}}$`,
);

export const ZListCallsInput = z.object({
  status: ZCallStatus.optional().describe("Only calls in this status"),
  direction: ZCallDirection.optional().describe("Only inbound or only outbound calls"),
  phoneNumberId: z
    .string()
    .trim()
    .min(1)
    .max(ID_MAX_CHARS)
    .optional()
    .describe("Only calls to or from this number (its id)"),
  callSid: z.string().trim().min(1).max(ID_MAX_CHARS).optional().describe("Only the call with this Twilio call SID"),
  answer: z
    .string()
    .max(CALL_ANSWERS.join(",").length)
    .regex(ANSWER_LIST, { message: `must be one or more of ${CALL_ANSWERS.join(", ")}, comma-separated` })
    .optional()
    .describe(
      "Only calls decided this way: one or more answer values, comma-separated (fallback-url,fallback-actions,fallback-twiml,fallback lists every call your backend's own answer did not decide)",
    ),
  since: ZFilterTime.optional().describe("Calls created at or after this time"),
  until: ZFilterTime.optional().describe("Calls created before this time"),
  test: z
    .enum(["true", "false"])
    .optional()
    .describe(
      "`true`: only simulated calls (POST /api/phone-numbers/{id}/simulate-call); absent or `false`: only real calls, the default",
    ),
  limit: queryInteger({ min: 1, max: PAGE_MAX_ITEMS }).default(50).describe("Page size, 1–100 (default 50)"),
  cursor: z.string().max(CURSOR_MAX_CHARS).optional().describe("nextCursor of the previous page; opaque"),
});

/** The reference's text for each value (src/shared/call-outcomes.ts, also docs/call-outcomes.md and the dashboard). */
const END_REASON_DESCRIPTION = `Why the call ended (docs/decisions.md §14); null while it lasts.\n\n${outcomeList(Object.entries(END_REASONS))}`;
const ERROR_CODE_DESCRIPTION = `The call.error code. Backend failures are here, not in endReason: the call may still have completed.\n\n${outcomeList(Object.entries(ERROR_CODES))}`;
const SIP_RESPONSE_CODE_DESCRIPTION =
  "The carrier's SIP response code (Twilio's SipResponseCode, e.g. 486 busy, 404 not found) from the final status callback; null when Twilio sent none";
const TWILIO_ERROR_CODE_DESCRIPTION =
  "Twilio's error code (its ErrorCode, see twilio.com/docs/api/errors) from the final status callback; null when Twilio sent none. Not Routekit's error.code";

const ZCallError = z.object({
  code: outputCode().describe(ERROR_CODE_DESCRIPTION),
  message: outputMessage().describe("What happened, in a sentence"),
});

const ZCall = z
  .object({
    callSid: twilioField().describe("Twilio's call SID (CA…)"),
    direction: ZCallDirection,
    from: twilioField().describe("The caller (Twilio's From), E.164"),
    to: twilioField().describe("The called number (Twilio's To), E.164"),
    phoneNumberId: outputId()
      .nullable()
      .describe("Null for a call to a number not registered here, or once the number is released"),
    status: ZCallStatus,
    startedAt: ZTimestamp.describe("When Routekit first saw the call"),
    endedAt: ZTimestamp.nullable().describe("When it reached a final status; null while it lasts"),
    durationSeconds: callSecondsInt().nullable().describe("Twilio's CallDuration in seconds; null until completed"),
    billedMinutes: callMinutesInt().nullable().describe("ceil(durationSeconds / 60); null until completed"),
    costBreakdown: ZCostBreakdown.nullable().describe("Completed calls: as on the usage record"),
    answeredBy: twilioField().nullable().describe("With machine detection: human, machine_start, …; null otherwise"),
    answer: ZCallAnswer.nullable().describe(
      "How the call was decided: the form of your onCallStartUrl answer (xml, json-twiml, json-actions); fallback-url, fallback-actions or fallback-twiml when your fallback decided it; `fallback` for your lastResort or the built-in apology; `reject` when Routekit rejected the call; null until decided",
    ),
    error: ZCallError.nullable().describe("Why the call fell back, was rejected or failed (the call.error code)"),
    endReason: ZCallEndReason.nullable().describe(END_REASON_DESCRIPTION),
    sipResponseCode: boundedInt(100, 699).nullable().describe(SIP_RESPONSE_CODE_DESCRIPTION),
    errorCode: boundedInt(1, 99_999).nullable().describe(TWILIO_ERROR_CODE_DESCRIPTION),
    test: z
      .boolean()
      .describe(
        "true for a simulated call (POST /api/phone-numbers/{id}/simulate-call): never billed, never counted in usage or limits, never sent to Twilio",
      ),
  })
  .meta({ id: "Call" });

export const ZListCallsOutput = z.object({
  calls: z.array(ZCall).max(PAGE_MAX_ITEMS).describe("Newest first"),
  nextCursor: boundedString(CURSOR_MAX_CHARS)
    .nullable()
    .describe("Pass as `cursor` for the next page; null on the last page"),
});

export const ZGetCallInput = z.object({
  callSid: z.string().trim().min(1).max(ID_MAX_CHARS).describe("Twilio's call SID (CA…)"),
});

const ZTimelineEntry = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("request").describe("A request from Twilio, or Routekit reading Twilio's record"),
    at: ZTimestamp.describe("When it arrived"),
    kind: z
      .enum(["voice", "status", "reconciliation", "closed"])
      .describe(
        "Twilio's voice request, a status callback, Routekit reading Twilio's call record, or Routekit closing a call whose final status never came (status unknown)",
      ),
    callStatus: outputCode().describe("The CallStatus it carried"),
    sequenceNumber: boundedInt(0, 999_999_999)
      .nullable()
      .describe("Twilio's SequenceNumber of a status callback; null when absent"),
  }),
  z.object({
    type: z
      .literal("call.started")
      .describe("One try of the synchronous call.started request: to onCallStartUrl, its retry, or your fallback URL"),
    at: ZTimestamp.describe("When it was sent"),
    deliveryId: outputId().describe("Its delivery, in GET /api/webhook-deliveries/{id}"),
    attempt: ZStartAttemptRole,
    outcome: outputCode()
      .nullable()
      .describe("The answer form this try's answer decided the call with, or the call.error code of why it could not"),
    url: outputUrl().describe("Where it was sent"),
    statusCode: httpStatusInt().nullable().describe("Your HTTP status; null when there was no answer"),
    latencyMs: latencyMsInt().describe("Milliseconds until your answer, or until it was given up"),
    responseExcerpt: boundedString(RESPONSE_EXCERPT_MAX_CHARS).nullable().describe("At most 4 KiB of your answer"),
    error: outputMessage()
      .nullable()
      .describe("Why there was no usable answer (time-out, connection refused…); null otherwise"),
    answerUse: outputCode()
      .nullable()
      .describe("For the whole delivery: the answer form used, or the call.error code of the primary's failure"),
  }),
  z.object({
    type: z.literal("twiml").describe("What Routekit answered Twilio"),
    at: ZTimestamp.describe("When it answered"),
    twiml: boundedString(STORED_TWIML_MAX_CHARS).describe("What Routekit answered Twilio (at most 16 KiB)"),
  }),
  z.object({
    type: z.literal("event").describe("An event queued for your backend"),
    at: ZTimestamp.describe("When it was queued"),
    deliveryId: outputId().describe("Its delivery, in GET /api/webhook-deliveries/{id}"),
    eventType: ZEventType,
    url: outputUrl().describe("Where it is sent"),
    status: ZDeliveryStatus,
    attemptCount: boundedInt(0, DB_INT_MAX).describe("Attempts so far"),
  }),
  z.object({
    type: z
      .literal("duration-clamped")
      .describe(
        "A final status nothing could verify (no Twilio connection) reported more than the call could have lasted; it was billed for what it could (docs/decisions.md §20)",
      ),
    at: ZTimestamp.describe("When the final status arrived"),
    reportedSeconds: callSecondsInt().describe("The CallDuration the status reported"),
    billedSeconds: callSecondsInt().describe("The seconds billed: the time since Routekit first saw the call, plus 60"),
  }),
  z.object({
    type: z.literal("command").describe("A live-call command (docs/decisions.md §13) and Twilio's answer to it"),
    at: ZTimestamp.describe("When it was sent"),
    command: z.enum(CALL_COMMANDS).describe("What was asked"),
    actor: outputCode().describe("Who asked: the API key's prefix (rtk_…), or `dashboard`"),
    outcome: z
      .enum(["ok", "refused", "unavailable", "pending"])
      .describe(
        "pending: sent, Twilio's answer not yet recorded; ok: Twilio did it; refused: Twilio refused (400 PROVIDER_REJECTED); unavailable: no answer (502)",
      ),
    providerStatus: httpStatusInt().nullable().describe("Twilio's HTTP status; null when Twilio could not be reached"),
    providerError: z
      .object({
        code: boundedInt(0, DB_INT_MAX).nullable().describe("Twilio's error code (e.g. 21220)"),
        message: outputMessage().describe("Twilio's message"),
      })
      .nullable()
      .describe("Twilio's error code and message when it refused"),
    latencyMs: latencyMsInt().describe("Twilio's time to answer, in milliseconds"),
    ownMs: latencyMsInt().describe("Routekit's own time around it, in milliseconds"),
    details: boundedRecord()
      .nullable()
      .describe("What was asked: the TwiML sent, the transfer's target and whisper, the recording's SID"),
  }),
  z.object({
    type: z.literal("transfer").describe("How a transfer's dial ended, as Twilio reported it to the engine"),
    at: ZTimestamp.describe("When Twilio reported it"),
    to: boundedString(TRANSFER_TARGET_MAX_CHARS).describe("Where the call was transferred"),
    dialCallStatus: outputCode().describe("Twilio's DialCallStatus"),
    dialCallSid: boundedString(TWILIO_SID_CHARS).nullable().describe("The dialled leg's SID"),
    dialCallDurationSeconds: callSecondsInt().nullable().describe("How long the transferred conversation lasted"),
    transferred: z.boolean().describe("true when the transfer connected; false when onFailure took over"),
  }),
  z.object({
    type: z.literal("recording").describe("A recording's status, as last reported"),
    at: ZTimestamp.describe("When its status last changed"),
    recordingSid: boundedString(TWILIO_SID_CHARS).describe("Twilio's recording SID (RE…)"),
    status: ZRecordingStatus,
  }),
  z.object({
    type: z.literal("usage").describe("The usage record of a completed call"),
    at: ZTimestamp.describe("When it was recorded"),
    billedMinutes: callMinutesInt().describe("ceil(durationSeconds / 60)"),
    costBreakdown: ZCostBreakdown,
  }),
]);

export const ZGetCallOutput = z.object({
  call: ZCall.extend({
    timeline: z.array(ZTimelineEntry).max(CALL_TIMELINE_MAX_ITEMS).describe("Oldest first"),
    recordings: z
      .array(ZCallRecording)
      .max(CALL_RECORDINGS_MAX_ITEMS)
      .describe("Recordings made through POST /api/calls/{callSid}/recording, oldest first"),
  })
    .meta({ id: "CallDetail" })
    .describe("The call with everything that happened to it"),
});

export type TCall = z.infer<typeof ZCall>;
export type TTimelineEntry = z.infer<typeof ZTimelineEntry>;
