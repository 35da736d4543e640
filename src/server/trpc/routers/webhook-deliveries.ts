import { ZDeliveryDetailOutput, ZDeliveryIdInput, ZListDeliveriesInput, ZListDeliveriesOutput } from "../../schemas/webhook-deliveries";
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
});
