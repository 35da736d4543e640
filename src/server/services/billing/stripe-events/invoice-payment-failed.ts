import type Stripe from "stripe";
import { invoiceCounts } from "../account-status-rules";
import { applyBillingState, idOf, lockBillingAccount, type StripeEventHandler } from "./billing-state";
import { invoiceSubscriptionId } from "./invoice-subscription";

/**
 * A failed charge: Stripe retries it and the subscription is `past_due`
 * meanwhile. The account stays ACTIVE with a dashboard warning (docs/decisions.md §4);
 * only `unpaid`, cancellation or deletion (subscription events) suspend it.
 */
export const invoicePaymentFailed: StripeEventHandler<Stripe.Invoice> = async (trx, invoice, created) => {
  const account = await lockBillingAccount(trx, { customer: idOf(invoice.customer) });
  if (!account || !invoiceCounts(account, invoiceSubscriptionId(invoice))) return;
  if (account.subscriptionStatus !== "active" && account.subscriptionStatus !== "trialing") return;
  await applyBillingState(trx, account.id, created, { subscriptionStatus: "past_due" });
};
