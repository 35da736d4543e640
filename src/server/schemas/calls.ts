import { z } from "zod";
import { queryInteger, ZQueryTime, ZTimestamp } from "./common";
import { ZCallDirection, ZCallStatus, ZDeliveryStatus } from "./enums";
import { ZEventType } from "./events";
import { ZCostBreakdown } from "./usage";

export { ZCallStatus };
export const ZCallAnswer = z.enum(["xml", "json-twiml", "json-actions", "fallback", "reject"]);

const ZFilterTime = ZQueryTime;

export const ZListCallsInput = z.object({
  status: ZCallStatus.optional().describe("Only calls in this status"),
  direction: ZCallDirection.optional().describe("Only inbound or only outbound calls"),
  phoneNumberId: z.string().trim().min(1).max(64).optional().describe("Only calls to or from this number (its id)"),
  callSid: z.string().trim().min(1).max(64).optional().describe("Only the call with this Twilio call SID"),
  since: ZFilterTime.optional().describe("Calls created at or after this time"),
  until: ZFilterTime.optional().describe("Calls created before this time"),
  limit: queryInteger({ min: 1, max: 100 }).default(50).describe("Page size, 1–100 (default 50)"),
  cursor: z.string().max(200).optional().describe("nextCursor of the previous page; opaque"),
});

export const ZCallError = z.object({
  code: z
    .string()
    .describe("The call.error code, e.g. START_CALLBACK_TIMEOUT, START_CALLBACK_STATUS, NUMBER_NOT_REGISTERED"),
  message: z.string().describe("What happened, in a sentence"),
});

export const ZCall = z.object({
  callSid: z.string().describe("Twilio's call SID (CA…)"),
  direction: ZCallDirection,
  from: z.string().describe("The caller (Twilio's From), E.164"),
  to: z.string().describe("The called number (Twilio's To), E.164"),
  phoneNumberId: z
    .string()
    .nullable()
    .describe("Null for a call to a number not registered here, or once the number is released"),
  status: ZCallStatus,
  startedAt: ZTimestamp.describe("When Routekit first saw the call"),
  endedAt: ZTimestamp.nullable().describe("When it reached a final status; null while it lasts"),
  durationSeconds: z.number().int().nullable().describe("Twilio's CallDuration in seconds; null until completed"),
  billedMinutes: z.number().int().nullable().describe("ceil(durationSeconds / 60); null until completed"),
  costBreakdown: ZCostBreakdown.nullable().describe("Completed calls: as on the usage record"),
  answeredBy: z.string().nullable().describe("With machine detection: human, machine_start, …; null otherwise"),
  answer: ZCallAnswer.nullable().describe(
    "How the call was decided: the form of your onCallStartUrl answer, `fallback` when it was unusable, `reject` when Routekit rejected the call; null until decided",
  ),
  error: ZCallError.nullable().describe("Why the call fell back, was rejected or failed (the call.error code)"),
});

export const ZListCallsOutput = z.object({
  calls: z.array(ZCall).describe("Newest first"),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
});

export const ZGetCallInput = z.object({
  callSid: z.string().trim().min(1).max(64).describe("Twilio's call SID (CA…)"),
});

const ZTimelineEntry = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("request").describe("A request from Twilio, or Routekit reading Twilio's record"),
    at: ZTimestamp.describe("When it arrived"),
    kind: z
      .enum(["voice", "status", "reconciliation"])
      .describe("Twilio's voice request, a status callback, or Routekit reading Twilio's call record"),
    callStatus: z.string().describe("The CallStatus it carried"),
    sequenceNumber: z
      .number()
      .int()
      .nullable()
      .describe("Twilio's SequenceNumber of a status callback; null when absent"),
  }),
  z.object({
    type: z.literal("call.started").describe("The synchronous call.started request to onCallStartUrl"),
    at: ZTimestamp.describe("When it was sent"),
    deliveryId: z.string().describe("Its delivery, in GET /api/webhook-deliveries/{id}"),
    url: z.string().describe("Where it was sent"),
    statusCode: z.number().int().nullable().describe("Your HTTP status; null when there was no answer"),
    latencyMs: z.number().int().describe("Milliseconds until your answer, or until it was given up"),
    responseExcerpt: z.string().nullable().describe("At most 4 KiB of your answer"),
    error: z
      .string()
      .nullable()
      .describe("Why there was no usable answer (time-out, connection refused…); null otherwise"),
    answerUse: z.string().nullable().describe("The answer form used, or the call.error code of the fallback"),
  }),
  z.object({
    type: z.literal("twiml").describe("What Routekit answered Twilio"),
    at: ZTimestamp.describe("When it answered"),
    twiml: z.string().describe("What Routekit answered Twilio (at most 16 KiB)"),
  }),
  z.object({
    type: z.literal("event").describe("An event queued for your backend"),
    at: ZTimestamp.describe("When it was queued"),
    deliveryId: z.string().describe("Its delivery, in GET /api/webhook-deliveries/{id}"),
    eventType: ZEventType,
    url: z.string().describe("Where it is sent"),
    status: ZDeliveryStatus,
    attemptCount: z.number().int().describe("Attempts so far"),
  }),
  z.object({
    type: z
      .literal("duration-clamped")
      .describe(
        "A final status nothing could verify (no Twilio connection) reported more than the call could have lasted; it was billed for what it could (docs/decisions.md §20)",
      ),
    at: ZTimestamp.describe("When the final status arrived"),
    reportedSeconds: z.number().int().describe("The CallDuration the status reported"),
    billedSeconds: z.number().int().describe("The seconds billed: the time since Routekit first saw the call, plus 60"),
  }),
  z.object({
    type: z.literal("usage").describe("The usage record of a completed call"),
    at: ZTimestamp.describe("When it was recorded"),
    billedMinutes: z.number().int().describe("ceil(durationSeconds / 60)"),
    costBreakdown: ZCostBreakdown,
  }),
]);

export const ZGetCallOutput = z.object({
  call: ZCall.extend({ timeline: z.array(ZTimelineEntry).describe("Oldest first") }).describe(
    "The call with everything that happened to it",
  ),
});

export type TCall = z.infer<typeof ZCall>;
export type TTimelineEntry = z.infer<typeof ZTimelineEntry>;
