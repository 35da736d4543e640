import { z } from "zod";
import { ZTimestamp } from "./common";
import { ZCallDirection, ZDeliveryStatus } from "./enums";
import { ZEventType } from "./events";
import { ZCostBreakdown } from "./usage";

export const ZCallStatus = z.enum(["queued", "initiated", "ringing", "in-progress", "completed", "busy", "no-answer", "failed", "canceled", "rejected"]);
export const ZCallAnswer = z.enum(["xml", "json-twiml", "json-actions", "fallback", "reject"]);

const ZFilterTime = z.iso.datetime({ offset: true, message: "must be an ISO 8601 time" });

export const ZListCallsInput = z.object({
  status: ZCallStatus.optional(),
  direction: ZCallDirection.optional(),
  phoneNumberId: z.string().trim().min(1).max(64).optional(),
  callSid: z.string().trim().min(1).max(64).optional(),
  since: ZFilterTime.optional().describe("Calls created at or after this time"),
  until: ZFilterTime.optional().describe("Calls created before this time"),
  limit: z.coerce
    .number({ message: "must be an integer" })
    .int({ message: "must be an integer" })
    .min(1, { message: "must be at least 1" })
    .max(100, { message: "must be at most 100" })
    .default(50),
  cursor: z.string().max(200).optional().describe("nextCursor of the previous page; opaque"),
});

export const ZCallError = z.object({ code: z.string(), message: z.string() });

export const ZCall = z.object({
  callSid: z.string(),
  direction: ZCallDirection,
  from: z.string(),
  to: z.string(),
  phoneNumberId: z.string().nullable().describe("Null for a call to a number not registered here, or once the number is released"),
  status: ZCallStatus.describe("Twilio's CallStatus as last reported, or `rejected` when Routekit rejected the call"),
  startedAt: ZTimestamp,
  endedAt: ZTimestamp.nullable(),
  durationSeconds: z.number().int().nullable(),
  billedMinutes: z.number().int().nullable(),
  costBreakdown: ZCostBreakdown.nullable().describe("Completed calls: as on the usage record"),
  answeredBy: z.string().nullable(),
  answer: ZCallAnswer.nullable().describe("How the call was decided: the form of your onCallStartUrl answer, `fallback` when it was unusable, `reject` when Routekit rejected the call; null until decided"),
  error: ZCallError.nullable().describe("Why the call fell back, was rejected or failed (the call.error code)"),
});

export const ZListCallsOutput = z.object({
  calls: z.array(ZCall),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page"),
});

export const ZGetCallInput = z.object({ callSid: z.string().trim().min(1).max(64) });

const ZTimelineEntry = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("request"),
    at: ZTimestamp,
    kind: z.enum(["voice", "status", "reconciliation"]).describe("Twilio's voice request, a status callback, or Routekit reading Twilio's call record"),
    callStatus: z.string(),
    sequenceNumber: z.number().int().nullable(),
  }),
  z.object({
    type: z.literal("call.started"),
    at: ZTimestamp,
    deliveryId: z.string(),
    url: z.string(),
    statusCode: z.number().int().nullable(),
    latencyMs: z.number().int(),
    responseExcerpt: z.string().nullable().describe("At most 4 KiB of your answer"),
    error: z.string().nullable(),
    answerUse: z.string().nullable().describe("The answer form used, or the call.error code of the fallback"),
  }),
  z.object({ type: z.literal("twiml"), at: ZTimestamp, twiml: z.string().describe("What Routekit answered Twilio (at most 16 KiB)") }),
  z.object({
    type: z.literal("event"),
    at: ZTimestamp,
    deliveryId: z.string(),
    eventType: ZEventType,
    url: z.string(),
    status: ZDeliveryStatus,
    attemptCount: z.number().int(),
  }),
  z.object({ type: z.literal("usage"), at: ZTimestamp, billedMinutes: z.number().int(), costBreakdown: ZCostBreakdown }),
]);

export const ZGetCallOutput = z.object({
  call: ZCall.extend({ timeline: z.array(ZTimelineEntry).describe("Oldest first") }),
});

export type TCall = z.infer<typeof ZCall>;
export type TTimelineEntry = z.infer<typeof ZTimelineEntry>;
