import type { SqlTransaction } from "../../db/sql-transaction";
import { stripeMeterEventJob } from "../../jobs/definitions/stripe-meter-event";
import { onTransaction, sendJob } from "../../jobs/job-queue";
import Stripe from "stripe";
import { verifyToken } from "../../auth/tokens";
import { env } from "../../env";
import { AppError } from "../../errors/app-error";
import { stripe } from "../../integrations/stripe/stripe-client";
import { stripeFailure } from "../../integrations/stripe/stripe-errors";
import type { BillingPlan, BillingStrategy, CheckoutNotShown } from "./billing-types";
import { localBillingLink } from "./local-links";
import { createStripeCheckoutUrl, createStripePortalUrl } from "./stripe-sessions";

/** Stripe mode (STRIPE_SECRET_KEY set): Stripe's prices, Checkout, Billing Portal, meter and webhooks. */
export class StripeBilling implements BillingStrategy {
  readonly dashboardNote = null;
  // A Stripe price's amount can never change (a new price is a new id), so once read it is good
  // for the life of the process.
  private stripePlan: Promise<BillingPlan> | undefined;

  /** Stripe's configured prices, falling back to MONTHLY_BASE / PER_MINUTE_RATE while Stripe cannot be read. */
  plan(): Promise<BillingPlan> {
    this.stripePlan ??= readStripePlan().catch((err: unknown) => {
      this.stripePlan = undefined; // try again next time
      stripeFailure(err, "read prices; using MONTHLY_BASE / PER_MINUTE_RATE meanwhile"); // logs it
      return { monthlyBase: env().monthlyBase, perMinuteRate: env().perMinuteRate };
    });
    return this.stripePlan;
  }

  /**
   * When Stripe cannot be reached, registration still succeeds: the link is then a page of ours
   * that makes a fresh Checkout Session when opened.
   */
  async registrationCheckoutUrl(accountId: string): Promise<string> {
    try {
      return await createStripeCheckoutUrl(accountId);
    } catch {
      // Logged by createStripeCheckoutUrl (at error when Stripe refused us).
      return localBillingLink("checkout", accountId);
    }
  }

  checkoutUrl(accountId: string): Promise<string> {
    return createStripeCheckoutUrl(accountId);
  }

  portalUrl(accountId: string): Promise<string> {
    return createStripePortalUrl(accountId);
  }

  /** Our checkout link (given while Stripe was unreachable): a fresh Checkout Session each time; opening it changes nothing. */
  viewCheckoutLink(token: string): Promise<CheckoutNotShown> {
    return stripeRedirect(token);
  }

  payCheckoutLink(token: string): Promise<CheckoutNotShown> {
    return stripeRedirect(token);
  }

  /** Stripe's Billing Portal replaces our portal page. */
  async viewPortal(): Promise<null> {
    return null;
  }

  async applyPortalAction(): Promise<"not-found"> {
    return "not-found";
  }

  hasPaymentMethod(account: { hasPaymentMethod: boolean }): boolean {
    return account.hasPaymentMethod;
  }

  /** The minutes reach Stripe's meter from the durable queue, once per call SID. */
  async recordBilledMinutes(
    trx: SqlTransaction,
    call: { stripeCustomerId: string | null; callSid: string; minutes: number; at: Date },
  ): Promise<void> {
    if (!call.stripeCustomerId || call.minutes <= 0) return;
    const meter = {
      stripeCustomerId: call.stripeCustomerId,
      callSid: call.callSid,
      minutes: call.minutes,
      timestamp: Math.floor(call.at.getTime() / 1000),
    };
    // Sent in the usage record's transaction, so the minutes are never lost nor sent for a rolled-back call.
    await sendJob(stripeMeterEventJob, meter, { db: onTransaction(trx) });
  }

  readonly reportsToMeter = true;

  /** The signature is checked on the raw body, before anything is parsed. */
  /** One Stripe already considers gone is fine. */
  async cancelSubscription(subscriptionId: string | null): Promise<void> {
    if (!subscriptionId) return;
    try {
      await stripe().subscriptions.cancel(subscriptionId);
    } catch (err) {
      if (err instanceof Stripe.errors.StripeError && err.code === "resource_missing") return;
      throw stripeFailure(err, "cancel subscription");
    }
  }

  async stripeWebhookEvent(readRawBody: () => Promise<string>, signature: string): Promise<Stripe.Event> {
    const raw = await readRawBody();
    try {
      return stripe().webhooks.constructEvent(raw, signature, env().stripe.webhookSecret!);
    } catch {
      throw new AppError("VALIDATION_FAILED", "Invalid Stripe-Signature.", {
        details: [{ path: "stripe-signature", message: "does not verify" }],
      });
    }
  }
}

async function readStripePlan(): Promise<BillingPlan> {
  const { priceBase, pricePerMinute } = env().stripe;
  const [base, perMinute] = await Promise.all([
    stripe().prices.retrieve(priceBase!),
    stripe().prices.retrieve(pricePerMinute!),
  ]);
  const cents = (p: typeof base) =>
    p.unit_amount_decimal !== null ? Number(p.unit_amount_decimal) : (p.unit_amount ?? 0);
  return { monthlyBase: cents(base) / 100, perMinuteRate: cents(perMinute) / 100 };
}

async function stripeRedirect(token: string): Promise<CheckoutNotShown> {
  const claims = await verifyToken("checkout", token);
  if (!claims) return { outcome: "not-found" };
  try {
    return { outcome: "redirect", url: await createStripeCheckoutUrl(claims.accountId) };
  } catch (err) {
    return {
      outcome: "provider-unavailable",
      message: err instanceof AppError ? err.message : "The payment provider could not be reached; try again shortly.",
    };
  }
}
