import Stripe from "stripe";
import { env } from "../../env";
import { stripe } from "../../integrations/stripe/stripe-client";
import { stripeFailure } from "../../integrations/stripe/stripe-errors";

/**
 * Stripe mode: the account's subscription ends now, so a closed account is
 * never billed again. One Stripe already considers gone is fine.
 */
export async function cancelStripeSubscription(subscriptionId: string | null): Promise<void> {
  if (env().billingMode !== "stripe" || !subscriptionId) return;
  try {
    await stripe().subscriptions.cancel(subscriptionId);
  } catch (err) {
    if (err instanceof Stripe.errors.StripeError && err.code === "resource_missing") return;
    throw stripeFailure(err, "cancel subscription");
  }
}
