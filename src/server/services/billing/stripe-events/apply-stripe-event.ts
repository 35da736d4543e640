import type Stripe from "stripe";
import { isUniqueViolation } from "../../../db/client";
import { sqlTransaction } from "../../../db/sql-transaction";
import { fromUnix, type StripeEventHandler } from "./billing-state";
import { checkoutSessionCompleted } from "./checkout-session-completed";
import { invoicePaid } from "./invoice-paid";
import { invoicePaymentFailed } from "./invoice-payment-failed";
import { customerUpdated, paymentMethodAttached } from "./payment-method";
import { STRIPE_EVENT_OBJECTS, parseStripeEvent } from "./stripe-event-schema";
import { subscriptionCreated, subscriptionDeleted, subscriptionUpdated } from "./subscription-changed";

// One small handler per event type; anything else is acknowledged and ignored.
const HANDLERS: Record<string, StripeEventHandler<never>> = {
  "checkout.session.completed": checkoutSessionCompleted,
  "customer.subscription.created": subscriptionCreated,
  "customer.subscription.updated": subscriptionUpdated,
  "customer.subscription.deleted": subscriptionDeleted,
  "invoice.paid": invoicePaid,
  "invoice.payment_failed": invoicePaymentFailed,
  "payment_method.attached": paymentMethodAttached,
  "customer.updated": customerUpdated,
};

const HANDLED_STRIPE_EVENTS = Object.keys(HANDLERS);
// Every handled type has its object checked before its handler reads it.
for (const type of HANDLED_STRIPE_EVENTS)
  if (!STRIPE_EVENT_OBJECTS[type]) throw new Error(`no schema for the Stripe event ${type}`);

/**
 * Each event id is applied once: its record and its effect commit together. A
 * malformed event (stripe-event-schema.ts) is a 400 before anything is stored.
 */
export async function applyStripeEvent(signed: Stripe.Event): Promise<"applied" | "duplicate" | "ignored"> {
  const event = parseStripeEvent(signed);
  const handler = HANDLERS[event.type] as StripeEventHandler<unknown> | undefined;
  if (!handler) return "ignored";
  try {
    await sqlTransaction(async (trx) => {
      await trx.insertInto("StripeEvent").values({ id: event.id, type: event.type }).execute();
      await handler(trx, event.data.object, fromUnix(event.created)!);
    });
    return "applied";
  } catch (err) {
    if (isUniqueViolation(err)) return "duplicate";
    throw err;
  }
}
