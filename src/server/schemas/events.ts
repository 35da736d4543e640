import { z } from "zod";
import { ZTimestamp } from "./common";
import { ZCallDirection } from "./enums";
import { ZCostBreakdown } from "./usage";

/** decisions §8: the three event types, spelled once. */
export const EVENT_TYPES = ["call.started", "call.ended", "call.error"] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const ZEventType = z.enum(EVENT_TYPES).describe("call.started: a call is answered and waits for your answer; call.ended: it ended; call.error: it failed, was rejected or fell back");
/** Which of a number's URLs receives each event type. */
export const EVENT_URL_FIELD = { "call.started": "onCallStartUrl", "call.ended": "onCallEndUrl", "call.error": "onErrorUrl" } as const satisfies Record<EventType, string>;

/** decisions §8: the events we send, as documented in the OpenAPI `webhooks`. */
export const ZEventEnvelope = z.object({
  id: z.string().describe("evt_…; the webhook-id header; the same on every retry"),
  type: ZEventType,
  createdAt: ZTimestamp,
  data: z.object({
    callSid: z.string(),
    direction: ZCallDirection,
    from: z.string(),
    to: z.string(),
    phoneNumberId: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).optional().describe("Outbound calls: the metadata given to POST /api/outbound"),
    status: z.string().optional().describe("Twilio's CallStatus"),
    durationSeconds: z.number().int().optional(),
    billedMinutes: z.number().int().optional(),
    costBreakdown: ZCostBreakdown.optional(),
    answeredBy: z.string().optional().describe("With machine detection: human, machine_start, …"),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
});
