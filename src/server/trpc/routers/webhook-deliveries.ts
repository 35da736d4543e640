import {
  ZDeliveryDetailOutput,
  ZDeliveryIdInput,
  ZListDeliveriesInput,
  ZListDeliveriesOutput,
  ZReplayDeliveriesInput,
  ZReplayDeliveriesOutput,
  ZSendTestEventInput,
} from "../../schemas/webhook-deliveries";
import { replayDeliveries } from "../../services/webhook-deliveries/replay-deliveries";
import { sendTestEvent } from "../../services/webhook-deliveries/send-test-event";
import { getDelivery, listDeliveries, retryDelivery } from "../../services/webhook-deliveries/webhook-deliveries";
import { apiProcedure, router } from "../init";

export const webhookDeliveriesRouter = router({
  list: apiProcedure
    .input(ZListDeliveriesInput)
    .output(ZListDeliveriesOutput)
    .query(({ ctx, input }) => listDeliveries({ accountId: ctx.auth.account.id, ...input })),
  get: apiProcedure
    .input(ZDeliveryIdInput)
    .output(ZDeliveryDetailOutput)
    .query(({ ctx, input }) => getDelivery({ accountId: ctx.auth.account.id, id: input.id })),
  retry: apiProcedure
    .input(ZDeliveryIdInput)
    .output(ZDeliveryDetailOutput)
    .mutation(({ ctx, input }) => retryDelivery({ accountId: ctx.auth.account.id, id: input.id })),
  sendTest: apiProcedure
    .input(ZSendTestEventInput)
    .output(ZDeliveryDetailOutput)
    .mutation(({ ctx, input }) => sendTestEvent({ accountId: ctx.auth.account.id, ...input })),
  replay: apiProcedure
    .input(ZReplayDeliveriesInput)
    .output(ZReplayDeliveriesOutput)
    .mutation(({ ctx, input }) => replayDeliveries({ accountId: ctx.auth.account.id, since: new Date(input.since), status: input.status })),
});
