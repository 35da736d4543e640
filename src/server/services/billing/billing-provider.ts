import { sqlTransaction } from "../../db/sql-transaction";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";
import { billing } from "./billing-strategy";

/** The link given at registration (never fails registration; see the strategies). */
export function createCheckoutUrl(accountId: string): Promise<string> {
  return billing().registrationCheckoutUrl(accountId);
}

/** POST /api/billing/checkout: a fresh checkout link, for accounts that have not paid yet. */
export async function freshCheckoutUrl(opts: { accountId: string; origin: AuditOrigin }): Promise<{ url: string }> {
  const url = await billing().checkoutUrl(opts.accountId);
  await recordLinkIssued(opts, "billing.checkout_link_issued");
  return { url };
}

/** POST /api/billing/portal: where the customer manages plan, payment method and invoices. */
export async function portalUrl(opts: { accountId: string; origin: AuditOrigin }): Promise<{ url: string }> {
  const url = await billing().portalUrl(opts.accountId);
  await recordLinkIssued(opts, "billing.portal_link_issued");
  return { url };
}

/**
 * A link is made at Stripe (or signed here) and changes no row of ours, so its entry is its own write, made
 * once the link exists: a link Stripe refused to make leaves none. The link is a bearer credential for the
 * account's billing, so the entry never holds it.
 */
async function recordLinkIssued(
  opts: { accountId: string; origin: AuditOrigin },
  action: "billing.checkout_link_issued" | "billing.portal_link_issued",
): Promise<void> {
  await sqlTransaction((trx) =>
    recordAudit(trx, { accountId: opts.accountId, origin: opts.origin, action, target: { type: "billing" } }),
  );
}
