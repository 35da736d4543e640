import type Stripe from "stripe";
import { idOf } from "./billing-state";

/** The subscription an invoice bills (`parent.subscription_details` on our pinned API version). */
export function invoiceSubscriptionId(invoice: Stripe.Invoice): string | null {
  return idOf(invoice.parent?.subscription_details?.subscription ?? null);
}
