/**
 * The shapes billing is made of, apart from the code that makes them: the strategy's interface, the plan,
 * the checkout and portal views. Both strategies (local-billing.ts, stripe-billing.ts) implement them and
 * billing-strategy.ts chooses one; importing the shapes from here keeps those files from importing each
 * other back.
 */
import type Stripe from "stripe";
import type { AccountStatus } from "@/generated/prisma/enums";
import type { SqlTransaction } from "../../db/sql-transaction";

/** The prices in force (docs/decisions.md §4). */
export type BillingPlan = { monthlyBase: number; perMinuteRate: number };

export type PortalAction = "cancel" | "resume";

export type PortalView = { email: string; status: AccountStatus; plan: BillingPlan };

export type CheckoutNotShown =
  | { outcome: "not-found" }
  | { outcome: "redirect"; url: string }
  | { outcome: "provider-unavailable"; message: string };
export type CheckoutView =
  | CheckoutNotShown
  | { outcome: "show"; email: string; status: AccountStatus; plan: BillingPlan };
export type CheckoutPayment = { outcome: "paid" } | CheckoutNotShown;

/**
 * Everything that differs between local billing mode (no payment provider: our own checkout and
 * portal pages) and Stripe mode (docs/decisions.md §4). Chosen once per configuration; callers ask it and
 * never look at the mode themselves.
 */
export interface BillingStrategy {
  /** The prices in force. */
  plan(): Promise<BillingPlan>;
  /** The checkout link given at registration; never fails registration. */
  registrationCheckoutUrl(accountId: string): Promise<string>;
  /** POST /api/billing/checkout: a fresh checkout link. */
  checkoutUrl(accountId: string): Promise<string>;
  /** POST /api/billing/portal: where the customer manages plan, payment method and invoices. */
  portalUrl(accountId: string): Promise<string>;
  /** GET or HEAD of our checkout link: opening it never pays. */
  viewCheckoutLink(token: string): Promise<CheckoutView>;
  /** POST of our checkout link. */
  payCheckoutLink(token: string): Promise<CheckoutPayment>;
  /** Our portal page (GET/HEAD), or null where there is none for this token. */
  viewPortal(token: string): Promise<PortalView | null>;
  /** A button of our portal page (POST). */
  applyPortalAction(token: string, action: PortalAction): Promise<"done" | "not-applicable" | "not-found">;
  /** Whether the account counts as having a payment method on file. */
  hasPaymentMethod(account: { status: AccountStatus; hasPaymentMethod: boolean }): boolean;
  /** In the usage record's transaction: a completed call's billed minutes, for the provider's meter. */
  recordBilledMinutes(
    trx: SqlTransaction,
    call: { stripeCustomerId: string | null; callSid: string; minutes: number; at: Date },
  ): Promise<void>;
  /** Closing an account: its subscription ends now, so a closed account is never billed again (PROVIDER_UNAVAILABLE when that cannot be done). */
  cancelSubscription(subscriptionId: string | null): Promise<void>;
  /** Whether completed calls' minutes go to a provider's meter: the meter job's workers run only then. */
  readonly reportsToMeter: boolean;
  /** POST /api/webhooks/stripe: the verified event, read from the raw body (AppError otherwise). */
  stripeWebhookEvent(readRawBody: () => Promise<string>, signature: string): Promise<Stripe.Event>;
  /** A line for the dashboard's billing page about how billing works here, or null. */
  readonly dashboardNote: string | null;
}
