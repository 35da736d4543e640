import type { AccountStatus } from "@/generated/prisma/enums";

/**
 * decisions §4: payment drives the account's status. A subscription that is
 * being paid makes it ACTIVE; one that is unpaid, past due, cancelled or gone
 * SUSPENDs it; an `incomplete` one (checkout not finished) changes nothing.
 */
export function statusForSubscription(subscriptionStatus: string): AccountStatus | null {
  switch (subscriptionStatus) {
    case "active":
    case "trialing":
      return "ACTIVE";
    case "past_due":
    case "unpaid":
    case "canceled":
    case "incomplete_expired":
    case "paused":
      return "SUSPENDED";
    default:
      return null;
  }
}
