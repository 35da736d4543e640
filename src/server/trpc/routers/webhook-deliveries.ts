import {
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
import { restProcedure } from "../../rest/rest-procedure";
import { apiProcedure } from "../init";

export const webhookDeliveries = {
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/webhook-deliveries",
    needs: "read",
    summary: "Event deliveries, newest first, filterable by status, call, event type, number, destination and time",
    input: ZListDeliveriesInput,
    output: ZListDeliveriesOutput,
  }).query(({ ctx, input }) => listDeliveries({ accountId: ctx.auth.account.id, ...input })),
  sendTest: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/webhook-deliveries/test",
    needs: "write",
    summary:
      "Send a signed sample event (`data.test = true`, callSid `CA` + 32 zeros) to a number's URL for that type, or to one of your webhook endpoints, now; answers the delivery with its attempt. At most 10 a minute per account",
    errors: [403, 404],
    input: ZSendTestEventInput,
    output: ZDeliveryDetailOutput,
  }).mutation(({ ctx, input }) => sendTestEvent({ accountId: ctx.auth.account.id, ...input })),
  replay: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/webhook-deliveries/replay",
    needs: "write",
    summary:
      "Queue again the deliveries (default: FAILED) created since a time at most 14 days ago, of every destination or of one webhook endpoint: at most 1,000 a call (`more` says whether others match), once a minute per account",
    input: ZReplayDeliveriesInput,
    output: ZReplayDeliveriesOutput,
  }).mutation(({ ctx, input }) =>
    replayDeliveries({
      accountId: ctx.auth.account.id,
      since: new Date(input.since),
      status: input.status,
      endpointId: input.endpointId,
    }),
  ),
  get: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/webhook-deliveries/:id",
    needs: "read",
    summary: "One delivery with its payload and every attempt",
    input: ZDeliveryIdInput,
    output: ZDeliveryDetailOutput,
  }).query(({ ctx, input }) => getDelivery({ accountId: ctx.auth.account.id, id: input.id })),
  retry: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/webhook-deliveries/:id/retry",
    needs: "write",
    summary:
      "Redeliver now (idempotent: while a redelivery waits or is in flight, and for 5 s after one, another schedules nothing and answers the delivery as it is)",
    input: ZDeliveryIdInput,
    output: ZDeliveryDetailOutput,
  }).mutation(({ ctx, input }) => retryDelivery({ accountId: ctx.auth.account.id, id: input.id })),
};
