import type Stripe from "stripe";
import { findAccountId, idOf, notePaymentMethod, type StripeEventHandler } from "./billing-state";

/** payment_method.attached: the customer now has a way to pay. */
export const paymentMethodAttached: StripeEventHandler<Stripe.PaymentMethod> = async (trx, pm) => {
  const accountId = await findAccountId(trx, { customer: idOf(pm.customer) });
  if (accountId) await notePaymentMethod(trx, accountId, pm.id);
};

/**
 * customer.updated: a default payment method in the invoice settings means
 * one is on file; none says nothing, because Checkout saves the card on the
 * subscription (`default_payment_method`), not on the customer.
 */
export const customerUpdated: StripeEventHandler<Stripe.Customer> = async (trx, customer) => {
  const accountId = await findAccountId(trx, { accountId: customer.metadata?.accountId, customer: customer.id });
  if (accountId) await notePaymentMethod(trx, accountId, idOf(customer.invoice_settings?.default_payment_method));
};
