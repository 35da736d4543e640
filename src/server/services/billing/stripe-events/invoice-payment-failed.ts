import type Stripe from "stripe";
import { invoiceCounts } from "../account-status-rules";
import { applyBillingState, idOf, lockBillingAccount, type StripeEventHandler } from "./billing-state";
import { invoiceSubscriptionId } from "./invoice-subscription";
import { raiseAlertIn } from "../../alerts/raise-alert";

/**
 * A failed charge: Stripe retries it and the subscription is `past_due`
 * meanwhile. The account stays ACTIVE with a dashboard warning (docs/decisions.md §4);
 * only `unpaid`, cancellation or deletion (subscription events) suspend it.
 */
export const invoicePaymentFailed: StripeEventHandler<Stripe.Invoice> = async (trx, invoice, created) => {
  const account = await lockBillingAccount(trx, { customer: idOf(invoice.customer) });
  if (!account || !invoiceCounts(account, invoiceSubscriptionId(invoice))) return;
  // docs/decisions.md §16: in the event's own transaction, so applied once with it (Stripe's redeliveries are duplicates).
  await raiseAlertIn(trx, {
    accountId: account.id,
    type: "alert.payment_failed",
    subject: { type: "account", id: account.id },
    since: created,
    details: {
      invoiceId: invoice.id ?? null,
      amountDue: typeof invoice.amount_due === "number" ? invoice.amount_due / 100 : null,
      currency: invoice.currency ?? null,
      attemptCount: invoice.attempt_count ?? null,
    },
  });
  if (account.subscriptionStatus !== "active" && account.subscriptionStatus !== "trialing") return;
  await applyBillingState(trx, account.id, created, { subscriptionStatus: "past_due" });
};
