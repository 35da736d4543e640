import { db } from "../../db/client";
import { env } from "../../env";
import { signToken } from "../../auth/tokens";
import { stripe } from "../../integrations/stripe/stripe-client";
import { stripeFailure } from "../../integrations/stripe/stripe-errors";

/**
 * The billing seam: checkout and portal links in either mode.
 *
 * Local mode (no Stripe key, the embedded default): both are pages of this
 * service. Stripe mode: a Checkout Session (subscription: flat base price +
 * metered per-minute price) and a Billing Portal session for the account's
 * Stripe customer, created once per account.
 */
function localLink(kind: "checkout" | "portal", token: string): string {
  return `${env().publicBaseUrl}/billing/${kind}/${token}`;
}

/** The account's Stripe customer; the idempotency key makes a retried creation return the same one. */
async function ensureCustomer(accountId: string): Promise<string> {
  const account = await db().account.findUniqueOrThrow({ where: { id: accountId }, select: { email: true, stripeCustomerId: true } });
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

/**
 * The link given at registration. In Stripe mode, when Stripe cannot be
 * reached, registration still succeeds: the link is then a page of ours that
 * makes a fresh Checkout Session when opened (and POST /api/billing/checkout
 * gives a fresh one at any time).
 */
export async function createCheckoutUrl(accountId: string): Promise<string> {
  const { token } = await signToken("checkout", accountId);
  if (env().billingMode === "local") return localLink("checkout", token);
  try {
    return await createStripeCheckoutUrl(accountId);
  } catch {
    // Logged by createStripeCheckoutUrl (at error when Stripe refused us).
    return localLink("checkout", token);
  }
}

/** POST /api/billing/checkout: a fresh checkout link, for accounts that have not paid yet. */
export async function freshCheckoutUrl(opts: { accountId: string }): Promise<{ url: string }> {
  if (env().billingMode === "local") return { url: localLink("checkout", (await signToken("checkout", opts.accountId)).token) };
  return { url: await createStripeCheckoutUrl(opts.accountId) };
}

/** POST /api/billing/portal: where the customer manages plan, payment method and invoices. */
export async function portalUrl(opts: { accountId: string }): Promise<{ url: string }> {
  if (env().billingMode === "local") return { url: localLink("portal", (await signToken("portal", opts.accountId)).token) };
  try {
    const customer = await ensureCustomer(opts.accountId);
    const session = await stripe().billingPortal.sessions.create({ customer, return_url: `${env().publicBaseUrl}/billing/done` });
    return { url: session.url };
  } catch (err) {
    throw stripeFailure(err, "billing portal");
  }
}
