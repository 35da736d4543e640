import { z } from "zod";
import { type CallbackUrlPolicyOptions, zCallbackUrl } from "../url-policy";
import { PUBLIC_HTTPS } from "./callback-fields";
import { ZId, ZTimestamp } from "./common";
import { ALL_EVENTS, ENDPOINT_EVENT_TYPES, EVENT_CATALOGUE, type EndpointEventType, ZEventType } from "./events";
import {
  boundedRecord,
  boundedString,
  ENDPOINT_DESCRIPTION_MAX_CHARS,
  outputId,
  outputMessage,
  outputUrl,
  SECRET_MAX_CHARS,
} from "./bounds";

/** docs/decisions.md §15: at most this many endpoints per account. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 10;

const ZEndpointEventType = z
  .enum([...ENDPOINT_EVENT_TYPES, ALL_EVENTS])
  .describe(
    "A catalogue type (GET /api/event-types) other than call.started, which goes to the number's onCallStartUrl only; or * for every type",
  );

const ZEventTypes = z
  .array(ZEndpointEventType)
  .min(1, { message: "name at least one event type, or *" })
  .max(ENDPOINT_EVENT_TYPES.length + 1)
  // One order and no repeats, whatever was sent; * alone says everything.
  .transform((types): (EndpointEventType | typeof ALL_EVENTS)[] =>
    types.includes(ALL_EVENTS) ? [ALL_EVENTS] : ENDPOINT_EVENT_TYPES.filter((t) => types.includes(t)),
  );

const ZDescription = z
  .string()
  .trim()
  .max(ENDPOINT_DESCRIPTION_MAX_CHARS)
  .describe("Your note: what this endpoint is for (at most 200 characters)");

const ZSecret = boundedString(SECRET_MAX_CHARS).describe(
  "whsec_…: this endpoint's own Standard Webhooks signing secret. Only on create and on GET /api/webhook-endpoints/{id} (never to a viewer)",
);

/** One endpoint, wherever it is shown: its `secret` only on create and on GET /api/webhook-endpoints/{id}. */
export const ZWebhookEndpoint = z
  .object({
    id: outputId(),
    url: outputUrl().describe(`Where the subscribed events are sent. ${PUBLIC_HTTPS}`),
    eventTypes: z
      .array(ZEndpointEventType)
      .max(ENDPOINT_EVENT_TYPES.length + 1)
      .describe('The event types sent here, or ["*"] for all'),
    description: boundedString(ENDPOINT_DESCRIPTION_MAX_CHARS).describe("Your note; empty when none"),
    enabled: z.boolean().describe("false: nothing new is sent here, and deliveries still queued for it are given up"),
    createdAt: ZTimestamp,
    secret: ZSecret.optional(),
  })
  .meta({ id: "WebhookEndpoint" });

export const ZWebhookEndpointOutput = z.object({ webhookEndpoint: ZWebhookEndpoint.describe("The endpoint") });
/** On create: the endpoint with the secret it was given. */
export const ZWebhookEndpointWithSecretOutput = z.object({
  webhookEndpoint: ZWebhookEndpoint.extend({ secret: ZSecret })
    .meta({ id: "WebhookEndpointWithSecret" })
    .describe("The endpoint with its secret"),
});
export const ZListWebhookEndpointsOutput = z.object({
  webhookEndpoints: z
    .array(ZWebhookEndpoint)
    .max(MAX_ENDPOINTS_PER_ACCOUNT)
    .describe("The account's endpoints, oldest first; without secrets"),
});
export const ZWebhookEndpointIdInput = z.object({ id: ZId.describe("The endpoint's id") });
export const ZDeleteWebhookEndpointOutput = z.object({
  deleted: z
    .literal(true)
    .describe("The endpoint is gone; its deliveries stay in the log, and queued ones are given up"),
});
export const ZRotateEndpointSecretOutput = z.object({
  secret: ZSecret.describe("The secret events to this endpoint are signed with from now on"),
  previousSecretExpiresAt: ZTimestamp.nullable().describe(
    "Until then events carry signatures from both secrets; null when only the current secret signs",
  ),
});
export const ZRotateEndpointSecretInput = ZWebhookEndpointIdInput.extend({
  expirePrevious: z
    .boolean()
    .optional()
    .describe(
      "true: do not rotate; retire the previous secret now (once your receiver verifies with the new one). The answer then holds the current secret and previousSecretExpiresAt null",
    ),
});

/** Inputs depend on the callback URL policy (CALLBACK_ALLOW_PRIVATE), like the numbers' (schemas/phone-numbers.ts). */
export function webhookEndpointInputSchemas(policy: () => CallbackUrlPolicyOptions) {
  const url = zCallbackUrl(policy);
  return {
    create: z.object({
      url: url.describe(`Where the subscribed events are sent. ${PUBLIC_HTTPS}`),
      eventTypes: ZEventTypes.describe(
        'The event types to send here (at least one), or ["*"] for every type of the catalogue but call.started',
      ),
      description: ZDescription.optional(),
    }),
    // Omitted fields stay as they are.
    update: z.object({
      id: ZId.describe("The endpoint's id"),
      url: url.optional().describe(`Where the subscribed events are sent. ${PUBLIC_HTTPS} Omitted: unchanged.`),
      eventTypes: ZEventTypes.optional().describe('The event types to send here, or ["*"]. Omitted: unchanged.'),
      description: ZDescription.optional(),
      enabled: z
        .boolean()
        .optional()
        .describe("false stops sending here (queued deliveries are given up); true starts again. Omitted: unchanged."),
    }),
  };
}
export type TCreateWebhookEndpointInput = z.infer<ReturnType<typeof webhookEndpointInputSchemas>["create"]>;
export type TUpdateWebhookEndpointInput = z.infer<ReturnType<typeof webhookEndpointInputSchemas>["update"]>;

export const ZEventTypesOutput = z.object({
  eventTypes: z
    .array(
      z.object({
        type: ZEventType.describe("The event type, as the envelope's `type` and the delivery log's eventType"),
        description: outputMessage().describe("When it is sent, and where"),
        schema: boundedRecord().describe("JSON Schema (draft 2020-12) of the whole event as sent: envelope and data"),
      }),
    )
    .max(EVENT_CATALOGUE.length)
    .describe(`Every event type Routekit sends: ${EVENT_CATALOGUE.map((e) => e.type).join(", ")}`),
});
