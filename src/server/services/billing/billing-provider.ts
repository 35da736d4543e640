import { billing } from "./billing-strategy";

/** The link given at registration (never fails registration; see the strategies). */
export function createCheckoutUrl(accountId: string): Promise<string> {
  return billing().registrationCheckoutUrl(accountId);
}

/** POST /api/billing/checkout: a fresh checkout link, for accounts that have not paid yet. */
export async function freshCheckoutUrl(opts: { accountId: string }): Promise<{ url: string }> {
  return { url: await billing().checkoutUrl(opts.accountId) };
}

/** POST /api/billing/portal: where the customer manages plan, payment method and invoices. */
export async function portalUrl(opts: { accountId: string }): Promise<{ url: string }> {
  return { url: await billing().portalUrl(opts.accountId) };
}
