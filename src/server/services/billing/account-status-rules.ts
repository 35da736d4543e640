import type { AccountStatus } from "@/generated/prisma/enums";

/**
 * docs/decisions.md §4: payment drives the account's status. A subscription being paid
 * makes it ACTIVE; `past_due` (Stripe is retrying the charge) leaves it as it
 * is, with a dashboard warning; `unpaid`, cancelled, expired or paused SUSPEND
 * it; `incomplete` (checkout not finished) changes nothing.
 */
export function statusForSubscription(subscriptionStatus: string): AccountStatus | null {
  switch (subscriptionStatus) {
    case "active":
    case "trialing":
      return "ACTIVE";
    case "unpaid":
    case "canceled":
    case "incomplete_expired":
    case "paused":
      return "SUSPENDED";
    default:
      return null;
  }
}

/** A subscription in one of these states is over for good at Stripe: nothing of it ever reactivates the account. */
export function isEndedSubscription(subscriptionStatus: string | null): boolean {
  return subscriptionStatus === "canceled" || subscriptionStatus === "incomplete_expired";
}

export type CurrentSubscription = { subscriptionId: string | null; subscriptionStatus: string | null };

/**
 * Whether a subscription event speaks for the account's subscription:
 * - "current": an event of the subscription the account has, while it lives;
 * - "adopt": a new subscription becomes the account's: the first one we hear
 *   of, or a newly created one that is already active (checkout's own event,
 *   `checkout.session.completed`, adopts through `adoptsCheckout`);
 * - "ignore": events of an older subscription, or of one that has ended, so a
 *   late event never brings a cancelled account back to life.
 */
export function subscriptionEventFor(
  current: CurrentSubscription,
  event: { kind: "created" | "updated" | "deleted"; subscriptionId: string; status: string },
): "current" | "adopt" | "ignore" {
  if (event.subscriptionId === current.subscriptionId)
    return isEndedSubscription(current.subscriptionStatus) ? "ignore" : "current";
  if (event.kind === "deleted") return "ignore";
  if (current.subscriptionId === null) return "adopt";
  return event.kind === "created" && statusForSubscription(event.status) === "ACTIVE" ? "adopt" : "ignore";
}

/** Checkout completed: its subscription becomes the account's, unless it is the account's own and already ended. */
export function adoptsCheckout(current: CurrentSubscription, subscriptionId: string): boolean {
  return !(subscriptionId === current.subscriptionId && isEndedSubscription(current.subscriptionStatus));
}

/** An invoice moves the account only when it belongs to the account's living subscription. */
export function invoiceCounts(current: CurrentSubscription, invoiceSubscriptionId: string | null): boolean {
  return (
    invoiceSubscriptionId !== null &&
    invoiceSubscriptionId === current.subscriptionId &&
    !isEndedSubscription(current.subscriptionStatus)
  );
}
