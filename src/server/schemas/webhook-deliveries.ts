import { z } from "zod";
import { ZId, ZTimestamp } from "./common";
import { ZDeliveryStatus } from "./enums";
import { ZEventType } from "./events";
import { ZPageInfo, ZPagination } from "./pagination";

export { ZDeliveryStatus, ZEventType };

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
  responseExcerpt: z.string().nullable().describe("At most 1 KiB of the response body (4 KiB for call.started)"),
  error: z.string().nullable(),
});

export const ZWebhookDelivery = z.object({
  id: ZId,
  eventId: z.string().describe("Sent as webhook-id; stable across retries"),
  eventType: ZEventType,
  callSid: z.string().nullable(),
  url: z.string(),
  status: ZDeliveryStatus,
  attemptCount: z.number().int(),
  nextAttemptAt: ZTimestamp.nullable(),
  lastAttemptAt: ZTimestamp.nullable(),
  deliveredAt: ZTimestamp.nullable(),
  createdAt: ZTimestamp,
  lastAttempt: ZWebhookAttempt.nullable(),
  endpointBackoffUntil: ZTimestamp.nullable().describe(
    "Set while this delivery's endpoint (account and URL) keeps failing: further attempts to it are paused until then, without using up the retry schedule",
  ),
  synchronous: z.boolean().describe("call.started: sent while Twilio waited, its answer decided the call; never retried or redelivered"),
  answerUse: z.string().nullable().describe("Synchronous deliveries: how the answer was used (xml, json-twiml, json-actions), or the call.error code of the fallback"),
});

export const ZListDeliveriesOutput = ZPageInfo.extend({ deliveries: z.array(ZWebhookDelivery) });
export const ZDeliveryIdInput = z.object({ id: ZId });
export const ZDeliveryDetailOutput = z.object({
  delivery: ZWebhookDelivery.extend({
    payload: z.record(z.string(), z.unknown()).describe("The event exactly as sent"),
    attempts: z.array(ZWebhookAttempt).describe("Newest first; attempts older than 30 days are pruned"),
  }),
});
export const ZRotateSecretInput = z
  .object({
    expirePrevious: z
      .boolean()
      .optional()
      .describe("true: do not rotate; retire the previous secret now (once your receivers verify with the new one). The answer then holds the current secret and previousSecretExpiresAt null"),
  })
  .optional();

export const ZRotateSecretOutput = z.object({
  webhookSecret: z.string().describe("The secret events are signed with from now on"),
  previousSecretExpiresAt: ZTimestamp.nullable().describe("Until then events carry signatures from both secrets; null when only the current secret signs"),
});

export const ZSendTestEventInput = z.object({
  phoneNumberId: ZId.describe("One of your numbers"),
  type: ZEventType.describe("Sent to the number's URL for this type: onCallStartUrl, onCallEndUrl or onErrorUrl"),
});

export const ZReplayDeliveriesInput = z.object({
  since: ZTimestamp.describe("Deliveries created at or after this time; at most 14 days ago"),
  status: ZDeliveryStatus.default("FAILED").describe("Which deliveries to queue again (default FAILED)"),
});
export const ZReplayDeliveriesOutput = z.object({
  queued: z.number().int().describe("Deliveries queued again; those already waiting for an attempt are not counted twice"),
});
