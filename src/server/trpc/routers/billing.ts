import { ZBillingSubscriptionOutput, ZUrlOutput } from "../../../shared/schemas/billing";
import { freshCheckoutUrl, portalUrl } from "../../services/billing/billing-provider";
import { billingSubscription } from "../../services/billing/billing-subscription";
import { restProcedure } from "../../rest/rest-procedure";
import { apiProcedure } from "../init";

// Billing stays reachable whatever the account's status: it is how an account pays or recovers.
export const billing = {
  subscription: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/billing/subscription",
    needs: "billing",
    summary: "Plan, prices and the current period's totals",
    output: ZBillingSubscriptionOutput,
  }).query(({ ctx }) => billingSubscription({ accountId: ctx.auth.account.id })),
  checkout: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/billing/checkout",
    needs: "billing",
    summary: "A fresh checkout link",
    errors: [502],
    output: ZUrlOutput,
  }).mutation(({ ctx }) => freshCheckoutUrl({ accountId: ctx.auth.account.id })),
  portal: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/billing/portal",
    needs: "billing",
    summary: "A billing portal link: plan, payment method, invoices",
    errors: [502],
    output: ZUrlOutput,
  }).mutation(({ ctx }) => portalUrl({ accountId: ctx.auth.account.id })),
};
