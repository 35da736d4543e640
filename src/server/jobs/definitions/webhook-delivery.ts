import { createHash } from "node:crypto";
import { z } from "zod";
import { defineJob } from "../job-definition";

/**
 * A crashed instance's deliveries must run elsewhere within 30 s (docs/decisions.md §8).
 * A delivery job is leased for DELIVERY_LEASE_SECONDS and the worker renews
 * the lease of every attempt in flight a few times per lease (job-queue.ts
 * `deliveryLease`), so a live attempt is never run twice while a dead
 * instance's lease runs out at most 12 s after its last renewal.
 */
export const DELIVERY_LEASE_SECONDS = 12;

/**
 * One attempt of one event delivery; `expectedAttempt` makes a stale or
 * repeated job skip. `accountId` lets the worker's fetch pass over the jobs of
 * an account at its cap in SQL (delivery-worker.ts), so they wait in the
 * queue instead of being fetched and put back; a job without it (sent before
 * it existed) is fetched like any other and capped after. `lane` names the
 * destination (deliveryLane): the worker caps attempts in flight per
 * destination too, so one that hangs cannot hold the slots of the account's
 * others.
 */
export const webhookDeliveryJob = defineJob({
  name: "webhook-delivery",
  payload: z.object({
    deliveryId: z.string().min(1),
    expectedAttempt: z.number().int().nonnegative(),
    accountId: z.string().min(1).optional(),
    lane: z.string().min(1).max(64).optional(),
    /** The W3C traceparent of what queued it, when tracing is on: the attempt's span joins that trace. */
    traceparent: z.string().max(128).optional(),
  }),
  // Our retry schedule makes new jobs; these retries only cover our own
  // failures and crashes, so the first comes soon (1-2 s), then backs off.
  queue: (tuning) => ({
    retryLimit: 10,
    retryDelay: 1,
    retryBackoff: true,
    expireInSeconds: tuning.deliveryLeaseSeconds ?? DELIVERY_LEASE_SECONDS,
  }),
});

export type DeliveryJob = z.infer<typeof webhookDeliveryJob.payload>;

/**
 * One destination of one account, as a short key in the job's data (the URL itself may be 2 KB): the unit
 * the delivery worker caps and times (delivery-worker.ts), and the same pair endpoint health is kept for.
 */
export function deliveryLane(accountId: string, url: string): string {
  return createHash("sha256").update(accountId).update("\n").update(url).digest("base64url").slice(0, 22);
}
