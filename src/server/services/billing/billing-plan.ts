import { env } from "../../env";

/** The prices in force. Local mode reads them from configuration; Stripe mode will read its prices here too. */
export function billingPlan(): { monthlyBase: number; perMinuteRate: number } {
  return { monthlyBase: env().monthlyBase, perMinuteRate: env().perMinuteRate };
}
