import type Stripe from "stripe";
import { applyBillingState, findAccountId, idOf, type StripeEventHandler } from "./billing-state";

/** A failed payment suspends service until a payment succeeds (invoice.paid). */
export const invoicePaymentFailed: StripeEventHandler<Stripe.Invoice> = async (tx, invoice, created) => {
  const customer = idOf(invoice.customer);
  const accountId = await findAccountId(tx, { customer });
  if (!accountId) return;
  await applyBillingState(tx, accountId, created, { status: "SUSPENDED" });
};
