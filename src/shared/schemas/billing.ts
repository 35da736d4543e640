import { z } from "zod";
import { ZSubscriptionOutput } from "./usage";
import { boundedString, outputCode, STRIPE_URL_MAX_CHARS } from "./bounds";

export const ZUrlOutput = z.object({
  url: boundedString(STRIPE_URL_MAX_CHARS).describe("Open in a browser; short-lived in Stripe mode"),
});

export const ZBillingSubscriptionOutput = ZSubscriptionOutput.extend({
  subscriptionStatus: outputCode()
    .nullable()
    .describe(
      "Stripe mode: Stripe's status of the account's subscription (`active`, `past_due`, `unpaid`, `canceled`…); null before checkout and in local billing mode. `past_due` means Stripe is retrying a failed charge: the account stays ACTIVE, but update the payment method before it becomes `unpaid` (which suspends it)",
    ),
});
