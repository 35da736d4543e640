import { db } from "../../db/client";
import { env } from "../../env";
import { stripe } from "../../integrations/stripe/stripe-client";
import { stripeFailure } from "../../integrations/stripe/stripe-errors";

/**
 * Stripe mode's links: a Checkout Session (subscription: flat base price + metered per-minute
 * price) and a Billing Portal session for the account's Stripe customer, created once per account.
 */

/** The account's Stripe customer; the idempotency key makes a retried creation return the same one. */
async function ensureCustomer(accountId: string): Promise<string> {
  const account = await db().account.findUniqueOrThrow({
    where: { id: accountId },
    select: { email: true, stripeCustomerId: true },
  });
  if (account.stripeCustomerId) return account.stripeCustomerId;
  const customer = await stripe().customers.create(
    { email: account.email, metadata: { accountId } },
    { idempotencyKey: `routekit-customer-${accountId}` },
  );
  await db().account.update({ where: { id: accountId }, data: { stripeCustomerId: customer.id } });
  return customer.id;
}

/** A Stripe Checkout Session URL. Throws AppError PROVIDER_UNAVAILABLE (refused, or unreachable) when Stripe fails. */
export async function createStripeCheckoutUrl(accountId: string): Promise<string> {
  try {
    return await stripeCheckoutSession(accountId);
  } catch (err) {
    throw stripeFailure(err, "checkout");
  }
}

async function stripeCheckoutSession(accountId: string): Promise<string> {
  const customer = await ensureCustomer(accountId);
  const { priceBase, pricePerMinute } = env().stripe;
  const session = await stripe().checkout.sessions.create({
    mode: "subscription",
    customer,
    client_reference_id: accountId,
    metadata: { accountId },
    subscription_data: { metadata: { accountId } },
    // The metered price takes no quantity: usage is reported as meter events.
    line_items: [{ price: priceBase!, quantity: 1 }, { price: pricePerMinute! }],
    success_url: `${env().publicBaseUrl}/billing/done?checkout=success`,
    cancel_url: `${env().publicBaseUrl}/billing/done?checkout=cancelled`,
  });
  if (!session.url) throw new Error("Stripe returned a Checkout Session without a URL");
  return session.url;
}

/** A Billing Portal session URL (plan, payment method, invoices). Throws AppError when Stripe fails. */
export async function createStripePortalUrl(accountId: string): Promise<string> {
  try {
    const customer = await ensureCustomer(accountId);
    const session = await stripe().billingPortal.sessions.create({
      customer,
      return_url: `${env().publicBaseUrl}/billing/done`,
    });
    return session.url;
  } catch (err) {
    throw stripeFailure(err, "billing portal");
  }
}
