import type Stripe from "stripe";
import { invoiceCounts } from "../account-status-rules";
import { applyBillingState, idOf, lockBillingAccount, type StripeEventHandler } from "./billing-state";
import { invoiceSubscriptionId } from "./invoice-subscription";

/**
 * A paid invoice of the account's living subscription: payment continues or
 * recovered, the account is ACTIVE. An invoice of an older or ended
 * subscription (a late one after `customer.subscription.deleted`) changes nothing.
 */
export const invoicePaid: StripeEventHandler<Stripe.Invoice> = async (trx, invoice, created) => {
  const account = await lockBillingAccount(trx, { customer: idOf(invoice.customer) });
  if (!account || !invoiceCounts(account, invoiceSubscriptionId(invoice))) return;
  await applyBillingState(trx, account.id, created, { status: "ACTIVE", subscriptionStatus: "active" });
};
