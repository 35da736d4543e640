import type Stripe from "stripe";
import { adoptsCheckout } from "../account-status-rules";
import {
  applyBillingState,
  idOf,
  lockBillingAccount,
  notePaymentMethod,
  type StripeEventHandler,
} from "./billing-state";

/**
 * Checkout completed: its subscription becomes the account's (the one way a
 * cancelled account comes back, docs/decisions.md §4). Paid → ACTIVE; a delayed payment
 * method (`unpaid`) waits for that subscription's `invoice.paid`.
 */
export const checkoutSessionCompleted: StripeEventHandler<Stripe.Checkout.Session> = async (trx, session, created) => {
  if (session.mode !== "subscription") return;
  const subscriptionId = idOf(session.subscription);
  if (!subscriptionId) return;
  const customer = idOf(session.customer);
  const account = await lockBillingAccount(trx, {
    accountId: session.client_reference_id ?? session.metadata?.accountId,
    customer,
  });
  if (!account || !adoptsCheckout(account, subscriptionId)) return;
  const paid = session.payment_status !== "unpaid";
  await applyBillingState(trx, account.id, created, {
    status: paid ? "ACTIVE" : null,
    stripeSubscriptionId: subscriptionId,
    subscriptionStatus: paid ? "active" : "incomplete",
    stripeCustomerId: customer,
  });
  if (typeof session.subscription === "object" && session.subscription)
    await notePaymentMethod(trx, account.id, idOf(session.subscription.default_payment_method));
};
