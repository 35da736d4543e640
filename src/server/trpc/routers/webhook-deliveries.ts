import type { z } from "zod";
import {
  type ZWebhookDelivery,
  ZDeliveryDetailOutput,
  ZDeliveryIdInput,
  ZListDeliveriesInput,
  ZListDeliveriesOutput,
  ZReplayDeliveriesInput,
  ZReplayDeliveriesOutput,
  ZSendTestEventInput,
} from "../../../shared/schemas/webhook-deliveries";
import { replayDeliveries } from "../../services/deliveries/replay-deliveries";
import { sendTestEvent } from "../../services/deliveries/send-test-event";
import { getDelivery, listDeliveries, retryDelivery } from "../../services/deliveries/webhook-deliveries";
import { originOf } from "../../services/audit/record-audit";
import { restProcedure } from "../rest-procedure";
import { apiProcedure } from "../init";
import {
  exampleAttempt,
  exampleCostBreakdown,
  exampleDelivery,
  exampleEventData,
  exampleNumber,
  exampleTime,
} from "./example-values";

// An endpoint that keeps timing out: its deliveries wait out its back-off.
const examplePausedDelivery: z.output<typeof ZWebhookDelivery> = {
  ...exampleDelivery,
  id: "cmwra4z2c00072c7dv0q8r4tb",
  eventId: "evt_7Xk2Pq9sLm4nB8vW",
  callSid: "CA89abcdef0123456789abcdef01234567",
  status: "PENDING",
  attemptCount: 5,
  nextAttemptAt: "2026-11-23T10:05:00.000Z",
  deliveredAt: null,
  lastAttempt: {
    ...exampleAttempt,
    id: "cmwra5q0e00082c7d1w6f2h9k",
    statusCode: null,
    latencyMs: 10000,
    responseExcerpt: null,
    error: "timeout: no answer within 10000 ms",
  },
  endpointBackoffUntil: "2026-11-23T10:02:00.000Z",
};

export const webhookDeliveries = {
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/webhook-deliveries",
    needs: "read",
    summary: "Event deliveries, newest first, filterable by status, call, event type, number, destination and time",
    input: ZListDeliveriesInput,
    output: ZListDeliveriesOutput,
    examples: {
      response: { deliveries: [exampleDelivery, examplePausedDelivery], total: 2, limit: 50, offset: 0 },
    },
  }).query(({ ctx, input }) => listDeliveries({ accountId: ctx.auth.account.id, ...input })),
  sendTest: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/webhook-deliveries/test",
    needs: "write",
    summary:
      "Send a signed sample event (`data.test = true`, callSid `CA` + 32 zeros) to a number's URL for that type, or to one of your webhook endpoints, now; answers the delivery with its attempt. At most 10 a minute per account",
    errors: [404],
    input: ZSendTestEventInput,
    output: ZDeliveryDetailOutput,
    examples: {
      request: { phoneNumberId: exampleNumber.id, type: "call.ended" },
      response: {
        delivery: {
          ...exampleDelivery,
          eventId: "evt_9kTq2Lm4Np6Rs8Uv",
          callSid: "CA00000000000000000000000000000000",
          payload: {
            id: "evt_9kTq2Lm4Np6Rs8Uv",
            type: "call.ended",
            createdAt: exampleTime,
            data: {
              callSid: "CA00000000000000000000000000000000",
              direction: "inbound",
              from: "+15005550006",
              to: exampleNumber.phoneNumber,
              phoneNumberId: exampleNumber.id,
              status: "completed",
              durationSeconds: 42,
              billedMinutes: 1,
              costBreakdown: {
                ...exampleCostBreakdown,
                durationSeconds: 42,
                billedMinutes: 1,
                usageCost: 0.02,
                totalCost: 0.02,
              },
              test: true,
            },
          },
          attempts: [exampleAttempt],
        },
      },
    },
  }).mutation(({ ctx, input }) => sendTestEvent({ accountId: ctx.auth.account.id, ...input })),
  replay: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/webhook-deliveries/replay",
    needs: "write",
    summary:
      "Queue again the deliveries (default: FAILED) created since a time at most 14 days ago, of every destination or of one webhook endpoint: at most 1,000 a call (`more` says whether others match), once a minute per account",
    input: ZReplayDeliveriesInput,
    output: ZReplayDeliveriesOutput,
    examples: {
      request: { since: "2026-11-21T00:00:00.000Z", status: "FAILED" },
      response: { queued: 3, more: false },
    },
  }).mutation(({ ctx, input }) =>
    replayDeliveries({
      accountId: ctx.auth.account.id,
      since: new Date(input.since),
      status: input.status,
      endpointId: input.endpointId,
      origin: originOf(ctx.auth, ctx.ip),
    }),
  ),
  get: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/webhook-deliveries/:id",
    needs: "read",
    summary: "One delivery with its payload and every attempt",
    input: ZDeliveryIdInput,
    output: ZDeliveryDetailOutput,
    examples: {
      response: {
        delivery: {
          ...exampleDelivery,
          payload: {
            id: exampleDelivery.eventId,
            type: "call.ended",
            createdAt: exampleTime,
            data: {
              ...exampleEventData,
              status: "completed",
              durationSeconds: 61,
              billedMinutes: 2,
              costBreakdown: exampleCostBreakdown,
              endReason: "completed",
              sipResponseCode: 200,
              errorCode: null,
            },
          },
          attempts: [exampleAttempt],
        },
      },
    },
  }).query(({ ctx, input }) => getDelivery({ accountId: ctx.auth.account.id, id: input.id })),
  retry: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/webhook-deliveries/:id/retry",
    needs: "write",
    summary:
      "Redeliver now (idempotent: while a redelivery waits or is in flight, and for 5 s after one, another schedules nothing and answers the delivery as it is)",
    input: ZDeliveryIdInput,
    output: ZDeliveryDetailOutput,
    examples: {
      response: {
        delivery: {
          ...exampleDelivery,
          status: "PENDING",
          nextAttemptAt: exampleTime,
          payload: {
            id: exampleDelivery.eventId,
            type: "call.ended",
            createdAt: exampleTime,
            data: { ...exampleEventData, status: "completed" },
          },
          attempts: [exampleAttempt],
        },
      },
    },
  }).mutation(({ ctx, input }) =>
    retryDelivery({ accountId: ctx.auth.account.id, id: input.id, origin: originOf(ctx.auth, ctx.ip) }),
  ),
};
