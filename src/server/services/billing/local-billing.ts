import type Stripe from "stripe";
import type { AccountStatus } from "@/generated/prisma/enums";
import { env } from "../../env";
import { AppError } from "../../errors/app-error";
import type { BillingPlan, BillingStrategy, CheckoutPayment, CheckoutView } from "./billing-types";
import { payLocalCheckout, viewLocalCheckout } from "./local-checkout";
import { localBillingLink } from "./local-links";
import { applyLocalPortalAction, viewLocalPortal } from "./local-portal";
import type { PortalAction, PortalView } from "./billing-types";

/**
 * Local billing mode (no Stripe key: the embedded default): MONTHLY_BASE / PER_MINUTE_RATE, and
 * checkout and portal are pages of this service (docs/decisions.md §4). The usage totals are the bill.
 */
export class LocalBilling implements BillingStrategy {
  readonly dashboardNote =
    "Local billing mode: no payment provider is configured; the portal is a page of this service.";

  async plan(): Promise<BillingPlan> {
    return { monthlyBase: env().monthlyBase, perMinuteRate: env().perMinuteRate };
  }

  registrationCheckoutUrl(accountId: string): Promise<string> {
    return localBillingLink("checkout", accountId);
  }

  checkoutUrl(accountId: string): Promise<string> {
    return localBillingLink("checkout", accountId);
  }

  portalUrl(accountId: string): Promise<string> {
    return localBillingLink("portal", accountId);
  }

  viewCheckoutLink(token: string): Promise<CheckoutView> {
    return viewLocalCheckout(token, () => this.plan());
  }

  payCheckoutLink(token: string): Promise<CheckoutPayment> {
    return payLocalCheckout(token);
  }

  viewPortal(token: string): Promise<PortalView | null> {
    return viewLocalPortal(token, () => this.plan());
  }

  applyPortalAction(token: string, action: PortalAction): Promise<"done" | "not-applicable" | "not-found"> {
    return applyLocalPortalAction(token, action);
  }

  /** Completing checkout stands in for a payment method. */
  hasPaymentMethod(account: { status: AccountStatus }): boolean {
    return account.status !== "INACTIVE";
  }

  /** No provider meter to feed. */
  async recordBilledMinutes(): Promise<void> {}

  /** No provider holds a subscription: closing the account is enough. */
  async cancelSubscription(): Promise<void> {}

  readonly reportsToMeter = false;

  async stripeWebhookEvent(): Promise<Stripe.Event> {
    throw new AppError("NOT_FOUND", "Stripe is not configured on this service.");
  }
}
