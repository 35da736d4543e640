import { z } from "zod";
import { ZTimestamp } from "./common";
import { ZCostBreakdown } from "./usage";

/** decisions §8: the events we send, as documented in the OpenAPI `webhooks`. */
export const ZEventEnvelope = z.object({
  id: z.string().describe("evt_…; the webhook-id header; the same on every retry"),
  type: z.enum(["call.started", "call.ended", "call.error"]),
  createdAt: ZTimestamp,
  data: z.object({
    callSid: z.string(),
    direction: z.enum(["inbound", "outbound"]),
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
