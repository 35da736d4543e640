import Stripe from "stripe";
import { env } from "../../env";
import { stripe } from "../../integrations/stripe/stripe-client";
import type { MeterJob } from "../../jobs/definitions/stripe-meter-event";

/**
 * One call's billed minutes to Stripe's meter. The call SID is the event's
 * identifier (and the idempotency key), so however often this runs, Stripe
 * counts it once. Network errors and 5xx throw: pg-boss retries with backoff.
 */
export async function reportMeterEvent(job: MeterJob): Promise<"reported" | "already-reported"> {
  try {
    await stripe().billing.meterEvents.create(
      {
        event_name: env().stripe.meterEventName!,
        payload: { stripe_customer_id: job.stripeCustomerId, value: String(job.minutes) },
        identifier: job.callSid,
        timestamp: job.timestamp,
      },
      { idempotencyKey: `routekit-meter-${job.callSid}` },
    );
    return "reported";
  } catch (err) {
    // A retry of an event Stripe already counted: done, not an error.
    if (err instanceof Stripe.errors.StripeInvalidRequestError && /already exists/i.test(err.message))
      return "already-reported";
    throw err;
  }
}
