import type Stripe from "stripe";
import { findAccountId, idOf, type StripeEventHandler } from "./billing-state";

/** payment_method.attached: the customer now has a way to pay. */
export const paymentMethodAttached: StripeEventHandler<Stripe.PaymentMethod> = async (tx, pm) => {
  const customer = idOf(pm.customer);
  const accountId = await findAccountId(tx, { customer });
  if (accountId) await tx.account.update({ where: { id: accountId }, data: { hasPaymentMethod: true } });
};

/** customer.updated: whether a default payment method is set. */
export const customerUpdated: StripeEventHandler<Stripe.Customer> = async (tx, customer) => {
  const accountId = await findAccountId(tx, { accountId: customer.metadata?.accountId, customer: customer.id });
  if (!accountId) return;
  await tx.account.update({ where: { id: accountId }, data: { hasPaymentMethod: Boolean(customer.invoice_settings?.default_payment_method) } });
};
