import { ZBillingSubscriptionOutput, ZUrlOutput } from "../../../shared/schemas/billing";
import { freshCheckoutUrl, portalUrl } from "../../services/billing/billing-provider";
import { billingSubscription } from "../../services/billing/billing-subscription";
import { originOf } from "../../services/audit/record-audit";
import { restProcedure } from "../rest-procedure";
import { apiProcedure } from "../init";

// Billing stays reachable whatever the account's status: it is how an account pays or recovers.
export const billing = {
  subscription: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/billing/subscription",
    needs: "billing",
    summary: "Plan, prices and the current period's totals",
    output: ZBillingSubscriptionOutput,
    examples: {
      response: {
        status: "ACTIVE",
        monthlyBase: 49,
        perMinuteRate: 0.02,
        totalCalls: 2,
        totalMinutes: 3,
        totalBilledMinutes: 3,
        hasPaymentMethod: true,
        currentPeriodStart: "2026-11-01T00:00:00.000Z",
        currentPeriodEnd: "2026-12-01T00:00:00.000Z",
        subscriptionStatus: "active",
      },
    },
  }).query(({ ctx }) => billingSubscription({ accountId: ctx.auth.account.id })),
  checkout: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/billing/checkout",
    needs: "billing",
    summary: "A fresh checkout link",
    errors: [502],
    output: ZUrlOutput,
    examples: { response: { url: "https://checkout.stripe.com/c/pay/cs_test_a1b2c3" } },
  }).mutation(({ ctx }) => freshCheckoutUrl({ accountId: ctx.auth.account.id, origin: originOf(ctx.auth, ctx.ip) })),
  portal: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/billing/portal",
    needs: "billing",
    summary: "A billing portal link: plan, payment method, invoices",
    errors: [502],
    output: ZUrlOutput,
    examples: { response: { url: "https://billing.stripe.com/p/session/test_YWNjdF8x" } },
  }).mutation(({ ctx }) => portalUrl({ accountId: ctx.auth.account.id, origin: originOf(ctx.auth, ctx.ip) })),
};
