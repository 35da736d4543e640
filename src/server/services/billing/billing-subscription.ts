import { db } from "../../db/client";
import { subscriptionSummary } from "../usage/usage";

/** GET /api/billing/subscription: the period's plan and totals, plus Stripe's own status of the subscription (the dashboard warns on `past_due`). */
export async function billingSubscription(opts: { accountId: string }) {
  const [summary, account] = await Promise.all([
    subscriptionSummary(opts),
    db().account.findUniqueOrThrow({ where: { id: opts.accountId }, select: { subscriptionStatus: true } }),
  ]);
  return { ...summary, subscriptionStatus: account.subscriptionStatus };
}
