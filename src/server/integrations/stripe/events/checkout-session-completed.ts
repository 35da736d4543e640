import type Stripe from "stripe";
import { applyBillingState, findAccountId, idOf, type StripeEventHandler } from "./billing-state";

/** Checkout paid for: the account becomes ACTIVE and learns its subscription. */
export const checkoutSessionCompleted: StripeEventHandler<Stripe.Checkout.Session> = async (tx, session, created) => {
  if (session.mode !== "subscription") return;
  if (session.payment_status === "unpaid") return; // e.g. a delayed payment method: invoice.paid will follow
  const customer = idOf(session.customer);
  const accountId = await findAccountId(tx, { accountId: session.client_reference_id ?? session.metadata?.accountId, customer });
  if (!accountId) return;
  const subscription = idOf(session.subscription);
  await applyBillingState(tx, accountId, created, { status: "ACTIVE", stripeSubscriptionId: subscription, ...(customer && { stripeCustomerId: customer }) });
};
