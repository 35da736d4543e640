import { ZUrlOutput } from "../../schemas/billing";
import { ZSubscriptionOutput } from "../../schemas/usage";
import { freshCheckoutUrl, portalUrl } from "../../services/billing/billing-provider";
import { subscriptionSummary } from "../../services/usage/usage";
import { apiProcedure, router } from "../init";

// Billing stays reachable whatever the account's status: it is how an account pays or recovers.
export const billingRouter = router({
  checkout: apiProcedure.output(ZUrlOutput).mutation(({ ctx }) => freshCheckoutUrl({ accountId: ctx.auth.account.id })),
  portal: apiProcedure.output(ZUrlOutput).mutation(({ ctx }) => portalUrl({ accountId: ctx.auth.account.id })),
  subscription: apiProcedure.output(ZSubscriptionOutput).query(({ ctx }) => subscriptionSummary({ accountId: ctx.auth.account.id })),
});
