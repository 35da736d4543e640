import { z } from "zod";
import { ZTimestamp } from "./common";
import { ZCallDirection } from "./enums";
import { ZCostBreakdown } from "./usage";

/** docs/decisions.md §8: the three event types, spelled once. */
export const EVENT_TYPES = ["call.started", "call.ended", "call.error"] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const ZEventType = z
  .enum(EVENT_TYPES)
  .describe(
    "call.started: a call is answered and waits for your answer; call.ended: it ended; call.error: it failed, was rejected or fell back",
  );
/** Which of a number's URLs receives each event type. */
export const EVENT_URL_FIELD = {
  "call.started": "onCallStartUrl",
  "call.ended": "onCallEndUrl",
  "call.error": "onErrorUrl",
} as const satisfies Record<EventType, string>;

/** docs/decisions.md §8: the events we send, as documented in the OpenAPI `webhooks`. */
export const ZEventEnvelope = z.object({
  id: z.string().describe("evt_…; the webhook-id header; the same on every retry"),
  type: ZEventType,
  createdAt: ZTimestamp.describe("When the event happened"),
  data: z
    .object({
      callSid: z.string().describe("Twilio's call SID (CA…)"),
      direction: ZCallDirection,
      from: z.string().describe("The caller (Twilio's From), E.164"),
      to: z.string().describe("The called number (Twilio's To), E.164"),
      phoneNumberId: z
        .string()
        .nullable()
        .describe("Your number's id; null for a call to a number not registered here"),
      metadata: z
        .record(z.string(), z.unknown())
        .optional()
        .describe("Outbound calls: the metadata given to POST /api/outbound"),
      status: z.string().optional().describe("Twilio's CallStatus"),
      durationSeconds: z
        .number()
        .int()
        .optional()
        .describe("call.ended of a completed call: Twilio's CallDuration in seconds"),
      billedMinutes: z.number().int().optional().describe("call.ended of a completed call: ceil(durationSeconds / 60)"),
      costBreakdown: ZCostBreakdown.optional().describe("call.ended of a completed call: as on the usage record"),
      answeredBy: z.string().optional().describe("With machine detection: human, machine_start, …"),
      error: z
        .object({
          code: z.string().describe("Why, as a code: START_CALLBACK_TIMEOUT, NUMBER_NOT_REGISTERED, …"),
          message: z.string().describe("Why, in a sentence"),
        })
        .optional()
        .describe("call.error only: what went wrong"),
      test: z
        .boolean()
        .optional()
        .describe(
          "true only on sample events from POST /api/webhook-deliveries/test; absent on events about real calls",
        ),
    })
    .describe("The call the event is about"),
});
