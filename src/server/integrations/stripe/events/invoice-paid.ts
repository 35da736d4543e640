import type Stripe from "stripe";
import { applyBillingState, findAccountId, idOf, type StripeEventHandler } from "./billing-state";

/** A paid invoice: payment recovered or continues, the account is ACTIVE. */
export const invoicePaid: StripeEventHandler<Stripe.Invoice> = async (tx, invoice, created) => {
  const customer = idOf(invoice.customer);
  const accountId = await findAccountId(tx, { customer });
  if (!accountId) return;
  await applyBillingState(tx, accountId, created, { status: "ACTIVE" });
};
