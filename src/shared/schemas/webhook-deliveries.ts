import { z } from "zod";
import { ZId, ZQueryTime, ZTimestamp } from "./common";
import { ZDeliveryStatus, ZStartAttemptRole } from "./enums";
import { ZEventType } from "./events";
import { ZPageInfo, ZPagination } from "./pagination";
import {
  boundedInt,
  boundedRecord,
  boundedString,
  DB_INT_MAX,
  DELIVERY_ATTEMPTS_MAX_ITEMS,
  httpStatusInt,
  ID_MAX_CHARS,
  latencyMsInt,
  outputCode,
  outputId,
  outputMessage,
  outputUrl,
  PAGE_MAX_ITEMS,
  REPLAY_MAX_DELIVERIES,
  RESPONSE_EXCERPT_MAX_CHARS,
  SECRET_MAX_CHARS,
  twilioField,
} from "./bounds";

/** Where a delivery goes: one of the account's webhook endpoints, or the URL a number (or a call) names for the event. */
export const ZDeliveryDestination = z.enum(["endpoint", "number-url"]);
export type DeliveryDestination = z.infer<typeof ZDeliveryDestination>;

/** docs/decisions.md §23: what a delivery is: an event owed to the customer, or a shadow's or a replay's call.started. */
export const DELIVERY_KINDS = ["event", "shadow", "replay"] as const;
const ZDeliveryKind = z
  .enum(DELIVERY_KINDS)
  .describe(
    "event: an event owed to you (retried, redeliverable); shadow: a call.started mirrored to a number's shadow backend; replay: a call.started sent by POST /api/calls/{callSid}/replay. Shadow and replay requests are sent once, never retried or redelivered, and count towards no alert or endpoint health",
  );
export type DeliveryKind = z.infer<typeof ZDeliveryKind>;

export const ZListDeliveriesInput = ZPagination.extend({
  kind: ZDeliveryKind.optional().describe("Only deliveries of this kind"),
  endpointId: ZId.optional().describe("Only deliveries to this webhook endpoint"),
  status: ZDeliveryStatus.optional().describe("Only deliveries in this status"),
  callSid: z
    .string()
    .trim()
    .min(1)
    .max(ID_MAX_CHARS)
    .optional()
    .describe("Only deliveries of this call (Twilio's call SID)"),
  eventType: ZEventType.optional().describe("Only deliveries of this event type"),
  phoneNumberId: z
    .string()
    .trim()
    .min(1)
    .max(ID_MAX_CHARS)
    .optional()
    .describe("Only deliveries about calls to or from this number (its id)"),
  destination: ZDeliveryDestination.optional().describe(
    "Only deliveries to a webhook endpoint (`endpoint`), or only to a number's or call's own URL (`number-url`)",
  ),
  since: ZQueryTime.optional().describe("Deliveries created at or after this time"),
  until: ZQueryTime.optional().describe("Deliveries created before this time"),
});

export const ZWebhookAttempt = z.object({
  id: outputId(),
  attemptedAt: ZTimestamp.describe("When the attempt was made"),
  url: outputUrl().describe("Where it was sent"),
  statusCode: httpStatusInt().nullable().describe("Your HTTP status; null when there was no answer"),
  latencyMs: latencyMsInt().describe("Milliseconds until your answer, or until it was given up (10 s at most)"),
  responseExcerpt: boundedString(RESPONSE_EXCERPT_MAX_CHARS)
    .nullable()
    .describe("At most 1 KiB of the response body (4 KiB for call.started)"),
  error: outputMessage()
    .nullable()
    .describe("Why there was no answer (time-out, refused connection, address not allowed…); null when there was one"),
  role: ZStartAttemptRole.nullable().describe("call.started only: which try this was; null for queued events"),
  outcome: outputCode()
    .nullable()
    .describe(
      "call.started only: the answer form this try's answer decided the call with, or the call.error code of why it could not; null for queued events",
    ),
});

export const ZWebhookDelivery = z
  .object({
    id: outputId(),
    eventId: outputId().describe("Sent as webhook-id; stable across retries"),
    eventType: ZEventType,
    callSid: twilioField().nullable().describe("The call the event is about; null for none"),
    url: outputUrl().describe(
      "Where the event is sent: the number's (or call's) URL for its type, or the endpoint's URL",
    ),
    endpointId: outputId()
      .nullable()
      .describe(
        "The destination: the webhook endpoint this delivery goes to (signed with its secret); null for the number's URL (signed with the account's)",
      ),
    status: ZDeliveryStatus,
    attemptCount: boundedInt(0, DB_INT_MAX).describe("Attempts so far"),
    nextAttemptAt: ZTimestamp.nullable().describe("When the next attempt is due; null when none is"),
    lastAttemptAt: ZTimestamp.nullable().describe("When the last attempt was made; null before the first"),
    deliveredAt: ZTimestamp.nullable().describe("When a 2xx was received; null until then"),
    createdAt: ZTimestamp,
    lastAttempt: ZWebhookAttempt.nullable().describe("The latest attempt; null before the first"),
    endpointBackoffUntil: ZTimestamp.nullable().describe(
      "Set while this delivery's endpoint (account and URL) keeps failing: further attempts to it are paused until then, without using up the retry schedule",
    ),
    kind: ZDeliveryKind,
    synchronous: z
      .boolean()
      .describe("call.started: sent while Twilio waited, its answer decided the call; never retried or redelivered"),
    answerUse: outputCode()
      .nullable()
      .describe(
        "Synchronous deliveries: how the answer was used (xml, json-twiml, json-actions), or the call.error code of the fallback",
      ),
  })
  .meta({ id: "WebhookDelivery" });

export const ZListDeliveriesOutput = ZPageInfo.extend({
  deliveries: z.array(ZWebhookDelivery).max(PAGE_MAX_ITEMS).describe("Newest first"),
});
export const ZDeliveryIdInput = z.object({ id: ZId.describe("The delivery's id") });
export const ZDeliveryDetailOutput = z.object({
  delivery: ZWebhookDelivery.extend({
    payload: boundedRecord().describe("The event exactly as sent"),
    attempts: z
      .array(ZWebhookAttempt)
      .max(DELIVERY_ATTEMPTS_MAX_ITEMS)
      .describe(`Newest first, at most ${DELIVERY_ATTEMPTS_MAX_ITEMS}; attempts older than 30 days are pruned`),
  })
    .meta({ id: "WebhookDeliveryDetail" })
    .describe("The delivery with its payload and attempts"),
});
export const ZRotateSecretInput = z
  .object({
    expirePrevious: z
      .boolean()
      .optional()
      .describe(
        "true: do not rotate; retire the previous secret now (once your receivers verify with the new one). The answer then holds the current secret and previousSecretExpiresAt null",
      ),
  })
  .optional();

export const ZRotateSecretOutput = z.object({
  webhookSecret: boundedString(SECRET_MAX_CHARS).describe("The secret events are signed with from now on"),
  previousSecretExpiresAt: ZTimestamp.nullable().describe(
    "Until then events carry signatures from both secrets; null when only the current secret signs",
  ),
});

export const ZSendTestEventInput = z
  .object({
    phoneNumberId: ZId.optional().describe("One of your numbers: the sample goes to its URL for the type"),
    endpointId: ZId.optional().describe(
      "One of your webhook endpoints instead: the sample goes there, signed with its secret (any type but call.started)",
    ),
    type: ZEventType.describe(
      "The sample's type. To a number: call.started, call.ended or call.error, sent to onCallStartUrl, onCallEndUrl or onErrorUrl",
    ),
  })
  .refine((v) => (v.phoneNumberId === undefined) !== (v.endpointId === undefined), {
    message: "give exactly one of phoneNumberId and endpointId",
    path: ["phoneNumberId"],
  });

export const ZReplayDeliveriesInput = z.object({
  since: ZTimestamp.describe("Deliveries created at or after this time; at most 14 days ago"),
  endpointId: ZId.optional().describe("Only the deliveries to this webhook endpoint; omitted: every destination"),
  status: ZDeliveryStatus.default("FAILED").describe("Which deliveries to queue again (default FAILED)"),
});
export const ZReplayDeliveriesOutput = z.object({
  queued: boundedInt(0, REPLAY_MAX_DELIVERIES).describe(
    "Deliveries queued again (at most 1,000 a call); those still queued are left as they are and not counted",
  ),
  more: z
    .boolean()
    .describe("true when more than 1,000 deliveries matched: replay again (once a minute) to queue the rest"),
});
