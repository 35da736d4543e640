import { env } from "../../env";
import { stripe } from "../../integrations/stripe/stripe-client";
import { stripeFailure } from "../../integrations/stripe/stripe-errors";

export type BillingPlan = { monthlyBase: number; perMinuteRate: number };

// A Stripe price's amount can never change (a new price is a new id), so once
// read it is good for the life of the process.
let stripePlan: Promise<BillingPlan> | undefined;

async function readStripePlan(): Promise<BillingPlan> {
  const { priceBase, pricePerMinute } = env().stripe;
  const [base, perMinute] = await Promise.all([stripe().prices.retrieve(priceBase!), stripe().prices.retrieve(pricePerMinute!)]);
  const cents = (p: typeof base) => (p.unit_amount_decimal !== null ? Number(p.unit_amount_decimal) : (p.unit_amount ?? 0));
  return { monthlyBase: cents(base) / 100, perMinuteRate: cents(perMinute) / 100 };
}

/**
 * The prices in force: Stripe's configured prices in Stripe mode (falling back
 * to MONTHLY_BASE / PER_MINUTE_RATE while Stripe cannot be read), the
 * configured values in local mode.
 */
export async function billingPlan(): Promise<BillingPlan> {
  const local = { monthlyBase: env().monthlyBase, perMinuteRate: env().perMinuteRate };
  if (env().billingMode === "local") return local;
  stripePlan ??= readStripePlan().catch((err: unknown) => {
    stripePlan = undefined; // try again next time
    stripeFailure(err, "read prices; using MONTHLY_BASE / PER_MINUTE_RATE meanwhile"); // logs it
    return local;
  });
  return stripePlan;
}
