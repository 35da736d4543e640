import { env, type Env } from "../../env";
import type { BillingStrategy } from "./billing-types";
import { LocalBilling } from "./local-billing";
import { StripeBilling } from "./stripe-billing";

export type { BillingStrategy, CheckoutNotShown } from "./billing-types";

/** docs/decisions.md §2: Stripe mode when STRIPE_SECRET_KEY is set (env.ts decides), local billing mode otherwise. */
export function chooseBillingStrategy(config: Pick<Env, "billingMode">): BillingStrategy {
  return config.billingMode === "stripe" ? new StripeBilling() : new LocalBilling();
}

// Per module graph, not on globalThis: the custom server and the Next.js bundles are separate
// graphs, and callers test what the strategy throws with `instanceof AppError` of their own graph.
// Every graph reads the one env() and so makes the same choice; it is made again only when the
// configuration itself is replaced (tests).
let chosen: { config: Env; strategy: BillingStrategy } | undefined;

export function billing(): BillingStrategy {
  const config = env();
  if (chosen?.config !== config) chosen = { config, strategy: chooseBillingStrategy(config) };
  return chosen.strategy;
}
