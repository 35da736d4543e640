import { billing } from "./billing-strategy";

export type BillingPlan = { monthlyBase: number; perMinuteRate: number };

/** The prices in force, as the billing mode sets them (billing-strategy.ts). */
export function billingPlan(): Promise<BillingPlan> {
  return billing().plan();
}
