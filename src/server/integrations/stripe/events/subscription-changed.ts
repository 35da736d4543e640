import type Stripe from "stripe";
import { statusForSubscription } from "../../../services/billing/account-status-rules";
import { applyBillingState, findAccountId, fromUnix, idOf, type StripeEventHandler } from "./billing-state";

/** Newer API versions keep the period on the subscription's items, older ones on the subscription. */
function periodOf(sub: Stripe.Subscription): { start: Date | null; end: Date | null } {
  const legacy = sub as unknown as { current_period_start?: number; current_period_end?: number };
  const item = sub.items?.data?.[0] as unknown as { current_period_start?: number; current_period_end?: number } | undefined;
  return { start: fromUnix(item?.current_period_start ?? legacy.current_period_start), end: fromUnix(item?.current_period_end ?? legacy.current_period_end) };
}

/** customer.subscription.created / updated: the status follows the subscription's. */
export const subscriptionChanged: StripeEventHandler<Stripe.Subscription> = async (tx, sub, created) => {
  const customer = idOf(sub.customer);
  const accountId = await findAccountId(tx, { accountId: sub.metadata?.accountId, customer });
  if (!accountId) return;
  const period = periodOf(sub);
  await applyBillingState(tx, accountId, created, {
    status: statusForSubscription(sub.status),
    stripeSubscriptionId: sub.id,
    currentPeriodStart: period.start,
    currentPeriodEnd: period.end,
  });
};

/** customer.subscription.deleted: no subscription, no service. */
export const subscriptionDeleted: StripeEventHandler<Stripe.Subscription> = async (tx, sub, created) => {
  const customer = idOf(sub.customer);
  const accountId = await findAccountId(tx, { accountId: sub.metadata?.accountId, customer });
  if (!accountId) return;
  await applyBillingState(tx, accountId, created, { status: "SUSPENDED" });
};
