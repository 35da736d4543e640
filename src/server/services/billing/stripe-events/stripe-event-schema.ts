import type Stripe from "stripe";
import { z } from "zod";
import { AppError } from "../../../errors/app-error";

/**
 * What a Stripe event must look like before it is applied. The signature says
 * who sent it, not that it is well formed: a signed event with a number for
 * its id, no `data.object` or a lone surrogate in a string reached the
 * database and failed there (500, and the driver's error quoted the payload
 * in the log). Only the fields the handlers read are checked; the rest passes.
 */

/** Stripe's ids (`evt_…`, `cus_…`) and ours in metadata: printable ASCII without spaces. */
const ZStripeId = z.string().regex(/^[\x21-\x7e]{1,255}$/, { message: "must be an id" });
/** A field that holds an id or, expanded, the object with its id. */
const ZRef = z.union([ZStripeId, z.looseObject({ id: ZStripeId })]).nullish();
/** Unix seconds that PostgreSQL's timestamptz and a Date both hold (up to the end of year 9999). */
const ZUnixTime = z.number().int().min(0).max(253_402_300_799);
const ZMetadata = z.looseObject({ accountId: ZStripeId.optional() }).nullish();
const ZWord = z.string().max(64);

const ZCheckoutSession = z.looseObject({
  mode: ZWord.nullish(),
  subscription: z.union([ZStripeId, z.looseObject({ id: ZStripeId, default_payment_method: ZRef })]).nullish(),
  customer: ZRef,
  client_reference_id: ZStripeId.nullish(),
  metadata: ZMetadata,
  payment_status: ZWord.nullish(),
});
const ZInvoice = z.looseObject({
  customer: ZRef,
  parent: z.looseObject({ subscription_details: z.looseObject({ subscription: ZRef }).nullish() }).nullish(),
});
const ZPeriod = { current_period_start: ZUnixTime.nullish(), current_period_end: ZUnixTime.nullish() };
const ZSubscription = z.looseObject({
  id: ZStripeId,
  status: ZWord,
  customer: ZRef,
  metadata: ZMetadata,
  default_payment_method: ZRef,
  items: z.looseObject({ data: z.array(z.looseObject(ZPeriod)) }).nullish(),
});
const ZPaymentMethod = z.looseObject({ id: ZStripeId, customer: ZRef });
const ZCustomer = z.looseObject({
  id: ZStripeId,
  metadata: ZMetadata,
  invoice_settings: z.looseObject({ default_payment_method: ZRef }).nullish(),
});

/** The object each handled event type carries; apply-stripe-event.ts handles exactly these. */
export const STRIPE_EVENT_OBJECTS: Record<string, z.ZodType> = {
  "checkout.session.completed": ZCheckoutSession,
  "customer.subscription.created": ZSubscription,
  "customer.subscription.updated": ZSubscription,
  "customer.subscription.deleted": ZSubscription,
  "invoice.paid": ZInvoice,
  "invoice.payment_failed": ZInvoice,
  "payment_method.attached": ZPaymentMethod,
  "customer.updated": ZCustomer,
};

const ZEnvelope = z.looseObject({
  id: ZStripeId,
  type: z.string().regex(/^[a-z0-9_.]{1,255}$/, { message: "must be an event type" }),
  created: ZUnixTime,
  data: z.looseObject({ object: z.looseObject({}) }),
});

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (code units: no `u` flag). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when every string and key in the value is well-formed UTF-16 (no lone
 * surrogate, which has no UTF-8 form to store). Walked with its own stack:
 * JSON may nest deeper than the call stack.
 */
export function wellFormedText(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length) {
    const value = stack.pop();
    if (typeof value === "string") {
      if (LONE_SURROGATE.test(value)) return false;
    } else if (Array.isArray(value)) stack.push(...value);
    else if (value !== null && typeof value === "object") {
      for (const [key, v] of Object.entries(value)) {
        if (LONE_SURROGATE.test(key)) return false;
        stack.push(v);
      }
    }
  }
  return true;
}

/** Paths and the schema's own messages only: a detail never quotes the payload back. */
function malformed(issues: { path: PropertyKey[]; message: string }[]): AppError {
  const details = issues
    .slice(0, 10)
    .map((i) => ({ path: ["event", ...i.path.map(String)].join(".").slice(0, 200), message: i.message }));
  return new AppError("VALIDATION_FAILED", "The Stripe event is malformed.", { details });
}

/**
 * The event, checked: its envelope always, its object when its type is one we
 * handle (others are acknowledged and ignored, so only their envelope must hold).
 * Throws 400 VALIDATION_FAILED otherwise.
 */
export function parseStripeEvent(event: unknown): Stripe.Event {
  if (!wellFormedText(event))
    throw malformed([{ path: [], message: "contains a string that is not well-formed Unicode (a lone surrogate)" }]);
  const envelope = ZEnvelope.safeParse(event);
  if (!envelope.success) throw malformed(envelope.error.issues);
  const objectSchema = STRIPE_EVENT_OBJECTS[envelope.data.type];
  if (objectSchema) {
    const object = objectSchema.safeParse(envelope.data.data.object);
    if (!object.success)
      throw malformed(object.error.issues.map((i) => ({ ...i, path: ["data", "object", ...i.path] })));
  }
  return event as Stripe.Event;
}
