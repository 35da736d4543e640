import { billing } from "./billing-strategy";
import type { BillingPlan } from "./billing-types";

export type { BillingPlan } from "./billing-types";

/** The prices in force, as the billing mode sets them (billing-strategy.ts). */
export function billingPlan(): Promise<BillingPlan> {
  return billing().plan();
}
