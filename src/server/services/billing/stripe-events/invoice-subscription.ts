import type Stripe from "stripe";
import { idOf } from "./billing-state";

/** The subscription an invoice bills: `parent.subscription_details` since API 2025-03-31, `subscription` before. */
export function invoiceSubscriptionId(invoice: Stripe.Invoice): string | null {
  const legacy = (invoice as unknown as { subscription?: string | { id: string } | null }).subscription;
  return idOf(invoice.parent?.subscription_details?.subscription ?? legacy ?? null);
}
