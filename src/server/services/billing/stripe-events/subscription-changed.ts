import type Stripe from "stripe";
import { statusForSubscription, subscriptionEventFor } from "../account-status-rules";
import {
  applyBillingState,
  fromUnix,
  idOf,
  lockBillingAccount,
  notePaymentMethod,
  type StripeEventHandler,
} from "./billing-state";

/** Our pinned API version keeps the billing period on the subscription's items. */
function periodOf(sub: Stripe.Subscription): { start: Date | null; end: Date | null } {
  const item = sub.items?.data?.[0];
  return { start: fromUnix(item?.current_period_start), end: fromUnix(item?.current_period_end) };
}

function subscriptionHandler(kind: "created" | "updated"): StripeEventHandler<Stripe.Subscription> {
  return async (trx, sub, created) => {
    const account = await lockBillingAccount(trx, { accountId: sub.metadata?.accountId, customer: idOf(sub.customer) });
    if (!account || subscriptionEventFor(account, { kind, subscriptionId: sub.id, status: sub.status }) === "ignore")
      return;
    const period = periodOf(sub);
    await applyBillingState(trx, account.id, created, {
      status: statusForSubscription(sub.status),
      stripeSubscriptionId: sub.id,
      subscriptionStatus: sub.status,
      currentPeriodStart: period.start,
      currentPeriodEnd: period.end,
    });
    await notePaymentMethod(trx, account.id, idOf(sub.default_payment_method));
  };
}

/** customer.subscription.created / updated: the status follows the account's subscription's (rules in account-status-rules). */
export const subscriptionCreated = subscriptionHandler("created");
export const subscriptionUpdated = subscriptionHandler("updated");

/** customer.subscription.deleted of the account's subscription: no subscription, no service. Another (older) one's deletion changes nothing. */
export const subscriptionDeleted: StripeEventHandler<Stripe.Subscription> = async (trx, sub, created) => {
  const account = await lockBillingAccount(trx, { accountId: sub.metadata?.accountId, customer: idOf(sub.customer) });
  if (!account || sub.id !== account.subscriptionId) return;
  await applyBillingState(trx, account.id, created, { status: "SUSPENDED", subscriptionStatus: "canceled" });
};
