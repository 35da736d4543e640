import type Stripe from "stripe";
import { findAccountId, idOf, notePaymentMethod, type StripeEventHandler } from "./billing-state";

/** payment_method.attached: the customer now has a way to pay. */
export const paymentMethodAttached: StripeEventHandler<Stripe.PaymentMethod> = async (tx, pm) => {
  const accountId = await findAccountId(tx, { customer: idOf(pm.customer) });
  if (accountId) await notePaymentMethod(tx, accountId, pm.id);
};

/**
 * customer.updated: a default payment method in the invoice settings means
 * one is on file; none says nothing, because Checkout saves the card on the
 * subscription (`default_payment_method`), not on the customer.
 */
export const customerUpdated: StripeEventHandler<Stripe.Customer> = async (tx, customer) => {
  const accountId = await findAccountId(tx, { accountId: customer.metadata?.accountId, customer: customer.id });
  if (accountId) await notePaymentMethod(tx, accountId, idOf(customer.invoice_settings?.default_payment_method));
};
