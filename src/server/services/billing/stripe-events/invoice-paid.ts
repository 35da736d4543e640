import type Stripe from "stripe";
import { invoiceCounts } from "../account-status-rules";
import { applyBillingState, idOf, lockBillingAccount, type StripeEventHandler } from "./billing-state";
import { invoiceSubscriptionId } from "./invoice-subscription";
import { paymentReceivedMail } from "../../../email/account-mails";
import { queueMail } from "../../../email/queue-mail";

/**
 * A paid invoice of the account's living subscription: payment continues or
 * recovered, the account is ACTIVE. An invoice of an older or ended
 * subscription (a late one after `customer.subscription.deleted`) changes nothing.
 * A charge of more than nothing is mailed to the account as received (issue #30), in
 * the event's transaction: applied once with it, Stripe's redeliveries are duplicates.
 */
export const invoicePaid: StripeEventHandler<Stripe.Invoice> = async (trx, invoice, created) => {
  const account = await lockBillingAccount(trx, { customer: idOf(invoice.customer) });
  if (!account || !invoiceCounts(account, invoiceSubscriptionId(invoice))) return;
  await applyBillingState(trx, account.id, created, { status: "ACTIVE", subscriptionStatus: "active" });
  const paid = typeof invoice.amount_paid === "number" ? invoice.amount_paid : 0;
  if (paid <= 0) return;
  const owner = await trx
    .selectFrom("Account")
    .select("email")
    .where("id", "=", account.id)
    .where("deletedAt", "is", null)
    .executeTakeFirst();
  if (!owner) return;
  const mail = paymentReceivedMail(owner.email, {
    amount: paid / 100,
    currency: invoice.currency ?? "usd",
    invoiceId: invoice.id ?? null,
    paidAt: created,
  });
  await queueMail(mail, { kind: "payment-received", trx });
};
