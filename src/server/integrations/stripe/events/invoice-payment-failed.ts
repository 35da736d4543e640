import type Stripe from "stripe";
import { applyBillingState, findAccountId, type StripeEventHandler } from "./billing-state";

/** A failed payment suspends service until a payment succeeds (invoice.paid). */
export const invoicePaymentFailed: StripeEventHandler<Stripe.Invoice> = async (tx, invoice, created) => {
  const customer = typeof invoice.customer === "string" ? invoice.customer : (invoice.customer?.id ?? null);
  const accountId = await findAccountId(tx, { customer });
  if (!accountId) return;
  await applyBillingState(tx, accountId, created, { status: "SUSPENDED" });
};
