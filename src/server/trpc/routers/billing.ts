import { ZBillingSubscriptionOutput, ZUrlOutput } from "../../schemas/billing";
import { freshCheckoutUrl, portalUrl } from "../../services/billing/billing-provider";
import { billingSubscription } from "../../services/billing/billing-subscription";
import { apiProcedure, router } from "../init";

// Billing stays reachable whatever the account's status: it is how an account pays or recovers.
export const billingRouter = router({
  checkout: apiProcedure.output(ZUrlOutput).mutation(({ ctx }) => freshCheckoutUrl({ accountId: ctx.auth.account.id })),
  portal: apiProcedure.output(ZUrlOutput).mutation(({ ctx }) => portalUrl({ accountId: ctx.auth.account.id })),
  subscription: apiProcedure.output(ZBillingSubscriptionOutput).query(({ ctx }) => billingSubscription({ accountId: ctx.auth.account.id })),
});
