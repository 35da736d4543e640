import type { z } from "zod";
import {
  type ZWebhookEndpoint,
  ZDeleteWebhookEndpointOutput,
  ZEventTypesOutput,
  ZListWebhookEndpointsOutput,
  ZRotateEndpointSecretInput,
  ZRotateEndpointSecretOutput,
  ZWebhookEndpointIdInput,
  ZWebhookEndpointOutput,
  ZWebhookEndpointWithSecretOutput,
  webhookEndpointInputSchemas,
} from "../../../shared/schemas/webhook-endpoints";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
} from "../../services/webhook-endpoints/webhook-endpoints";
import { eventTypes as eventCatalogue } from "../../webhooks/event-types";
import { serverCallbackPolicy } from "../../webhooks/http/server-callback-policy";
import { originOf } from "../../services/audit/record-audit";
import { seesSecrets } from "../../../shared/roles";
import { restProcedure } from "../rest-procedure";
import { apiProcedure } from "../init";
import { exampleTime } from "./example-values";

const inputs = webhookEndpointInputSchemas(serverCallbackPolicy);

const exampleEndpoint: z.output<typeof ZWebhookEndpoint> = {
  id: "cmwra8e1p00092c7d3k5v7x2m",
  url: "https://pipeline.example.com/routekit",
  eventTypes: ["call.ended", "call.error"],
  description: "Data pipeline",
  enabled: true,
  createdAt: exampleTime,
};
const exampleEndpointSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

export const webhookEndpoints = {
  create: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/webhook-endpoints",
    needs: "write",
    status: 201,
    summary:
      "Add a webhook endpoint: the events of the types it subscribes to (or `*`) are sent there too, signed with its own secret (returned here and by GET /{id}). At most 10 per account",
    input: inputs.create,
    output: ZWebhookEndpointWithSecretOutput,
    examples: {
      request: {
        url: exampleEndpoint.url,
        eventTypes: exampleEndpoint.eventTypes,
        description: exampleEndpoint.description,
      },
      response: { webhookEndpoint: { ...exampleEndpoint, secret: exampleEndpointSecret } },
    },
  }).mutation(({ ctx, input }) =>
    createWebhookEndpoint({ accountId: ctx.auth.account.id, input, origin: originOf(ctx.auth, ctx.ip) }),
  ),
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/webhook-endpoints",
    needs: "read",
    summary: "The account's webhook endpoints, oldest first, without their secrets",
    output: ZListWebhookEndpointsOutput,
    examples: {
      response: {
        webhookEndpoints: [
          exampleEndpoint,
          {
            ...exampleEndpoint,
            id: "cmwra8e1p00102c7d9q2w4e6r",
            url: "https://app.example.com/hooks",
            eventTypes: ["*"],
            description: "",
          },
        ],
      },
    },
  }).query(({ ctx }) => listWebhookEndpoints({ accountId: ctx.auth.account.id })),
  get: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/webhook-endpoints/:id",
    needs: "read",
    summary: "One webhook endpoint, with its signing secret (not for a viewer)",
    input: ZWebhookEndpointIdInput,
    output: ZWebhookEndpointOutput,
    examples: { response: { webhookEndpoint: { ...exampleEndpoint, secret: exampleEndpointSecret } } },
  }).query(({ ctx, input }) =>
    getWebhookEndpoint({ accountId: ctx.auth.account.id, id: input.id, showSecret: seesSecrets(ctx.auth.role) }),
  ),
  update: restProcedure(apiProcedure, {
    method: "PATCH",
    path: "/api/webhook-endpoints/:id",
    needs: "write",
    summary: "Change a webhook endpoint's url, eventTypes, description, or enable and disable it",
    input: inputs.update,
    output: ZWebhookEndpointOutput,
    examples: { request: { enabled: false }, response: { webhookEndpoint: { ...exampleEndpoint, enabled: false } } },
  }).mutation(({ ctx, input }) =>
    updateWebhookEndpoint({ accountId: ctx.auth.account.id, input, origin: originOf(ctx.auth, ctx.ip) }),
  ),
  delete: restProcedure(apiProcedure, {
    method: "DELETE",
    path: "/api/webhook-endpoints/:id",
    needs: "write",
    summary: "Delete a webhook endpoint; its deliveries stay in the log and queued ones are given up",
    input: ZWebhookEndpointIdInput,
    output: ZDeleteWebhookEndpointOutput,
    examples: { response: { deleted: true } },
  }).mutation(({ ctx, input }) =>
    deleteWebhookEndpoint({ accountId: ctx.auth.account.id, id: input.id, origin: originOf(ctx.auth, ctx.ip) }),
  ),
  rotateSecret: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/webhook-endpoints/:id/secret",
    needs: "write",
    summary: "Rotate the endpoint's signing secret (the old one keeps signing for 24 hours)",
    input: ZRotateEndpointSecretInput,
    output: ZRotateEndpointSecretOutput,
    examples: {
      response: {
        secret: "whsec_Zk3nq0VvO1LJ4Yx8mR2tBwC6sUeHa9Gd",
        previousSecretExpiresAt: "2026-11-23T10:00:00.000Z",
      },
    },
  }).mutation(({ ctx, input }) =>
    rotateWebhookEndpointSecret({
      accountId: ctx.auth.account.id,
      id: input.id,
      expirePrevious: input.expirePrevious,
      origin: originOf(ctx.auth, ctx.ip),
    }),
  ),
};

export const eventTypes = {
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/event-types",
    needs: "read",
    summary: "The event catalogue: every event type Routekit sends, with a description and the JSON Schema of its body",
    output: ZEventTypesOutput,
    examples: {
      response: {
        eventTypes: [
          {
            type: "call.ringing",
            description:
              "Twilio reported the call ringing (status callback). Account endpoints that subscribe to it only",
            schema: {
              $schema: "https://json-schema.org/draft/2020-12/schema",
              type: "object",
              properties: {
                id: { type: "string", maxLength: 64 },
                type: { type: "string", const: "call.ringing" },
              },
              required: ["id", "type", "createdAt", "data"],
            },
          },
        ],
      },
    },
  }).query(() => eventCatalogue()),
};
