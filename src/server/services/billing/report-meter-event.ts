import type pg from "pg";
import Stripe from "stripe";
import { env } from "../../env";
import { stripe } from "../../integrations/stripe/stripe-client";
import { QUEUES, jobQueue, onConnection, registerWorker, sendJob } from "../../jobs/job-queue";
import { logger } from "../../logger";

export type MeterJob = { stripeCustomerId: string; callSid: string; minutes: number; timestamp: number };

/** Recorded in the usage record's transaction: a completed call's minutes are never lost. */
export async function enqueueMeterEvent(client: pg.ClientBase, opts: { stripeCustomerId: string; callSid: string; minutes: number; at: Date }): Promise<void> {
  const job: MeterJob = { stripeCustomerId: opts.stripeCustomerId, callSid: opts.callSid, minutes: opts.minutes, timestamp: Math.floor(opts.at.getTime() / 1000) };
  await sendJob(QUEUES.stripeMeterEvent, job, { db: onConnection(client) });
}

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
    if (err instanceof Stripe.errors.StripeInvalidRequestError && /already exists/i.test(err.message)) return "already-reported";
    throw err;
  }
}

export async function startMeterWorker(): Promise<void> {
  const boss = await jobQueue();
  const id = await boss.work<MeterJob>(QUEUES.stripeMeterEvent, { batchSize: 10, pollingIntervalSeconds: 2 }, async (jobs) => {
    for (const job of jobs) {
      try {
        await reportMeterEvent(job.data);
      } catch (err) {
        logger().warn({ err: err instanceof Error ? err.message : String(err), callSid: job.data.callSid }, "meter event not reported yet; will retry");
        throw err;
      }
    }
  });
  registerWorker(QUEUES.stripeMeterEvent, id);
}
