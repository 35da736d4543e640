import { z } from "zod";
import { ZId, ZTimestamp } from "./common";
import { ZPageInfo, ZPagination } from "./pagination";

export const ZDeliveryStatus = z.enum(["PENDING", "DELIVERED", "FAILED"]);

export const ZListDeliveriesInput = ZPagination.extend({
  status: ZDeliveryStatus.optional(),
  callSid: z.string().trim().min(1).max(64).optional(),
});

export const ZWebhookAttempt = z.object({
  id: ZId,
  attemptedAt: ZTimestamp,
  url: z.string(),
  statusCode: z.number().int().nullable(),
  latencyMs: z.number().int(),
  responseExcerpt: z.string().nullable().describe("At most 1 KiB of the response body"),
  error: z.string().nullable(),
});

export const ZWebhookDelivery = z.object({
  id: ZId,
  eventId: z.string().describe("Sent as webhook-id; stable across retries"),
  eventType: z.enum(["call.started", "call.ended", "call.error"]),
  callSid: z.string().nullable(),
  url: z.string(),
  status: ZDeliveryStatus,
  attemptCount: z.number().int(),
  nextAttemptAt: ZTimestamp.nullable(),
  lastAttemptAt: ZTimestamp.nullable(),
  deliveredAt: ZTimestamp.nullable(),
  createdAt: ZTimestamp,
  lastAttempt: ZWebhookAttempt.nullable(),
});

export const ZListDeliveriesOutput = ZPageInfo.extend({ deliveries: z.array(ZWebhookDelivery) });
export const ZDeliveryIdInput = z.object({ id: ZId });
export const ZDeliveryDetailOutput = z.object({
  delivery: ZWebhookDelivery.extend({
    payload: z.record(z.string(), z.unknown()).describe("The event exactly as sent"),
    attempts: z.array(ZWebhookAttempt).describe("Newest first; attempts older than 30 days are pruned"),
  }),
});
export const ZRotateSecretOutput = z.object({
  webhookSecret: z.string(),
  previousSecretExpiresAt: ZTimestamp.describe("Until then events carry signatures from both secrets"),
});
