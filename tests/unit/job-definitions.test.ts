import { describe, expect, it } from "vitest";
import { JOB_DEFINITIONS } from "../../src/server/jobs/definitions";
import { stripeMeterEventJob } from "../../src/server/jobs/definitions/stripe-meter-event";
import { DELIVERY_LEASE_SECONDS, webhookDeliveryJob } from "../../src/server/jobs/definitions/webhook-delivery";
import { JOB_WORKERS } from "../../src/server/workers/job-workers";

describe("job definitions", () => {
  it("keep the queue names jobs already wait in on existing databases, one definition each", () => {
    expect(JOB_DEFINITIONS.map((j) => j.name)).toEqual([
      "webhook-delivery",
      "webhook-attempt-prune",
      "stripe-meter-event",
      "twilio-reconcile",
      "close-unfinished-calls",
      "usage-threshold-mail",
      "mail",
      "alert-scan",
      "number-config-check",
    ]);
  });

  it("each has exactly one worker that runs it: a handler, its own loop, or a schedule with a handler", () => {
    expect(Object.keys(JOB_WORKERS).sort()).toEqual(JOB_DEFINITIONS.map((j) => j.name).sort());
    for (const job of JOB_DEFINITIONS) {
      const worker = JOB_WORKERS[job.name] as { handler?: unknown; run?: unknown };
      expect(Boolean(worker.handler) !== Boolean(worker.run), job.name).toBe(true);
      if (job.cron) expect(worker.handler, job.name).toBeTypeOf("function");
    }
  });

  it("check payloads when sent: a malformed job is refused before it reaches the queue", () => {
    expect(webhookDeliveryJob.payload.safeParse({ deliveryId: "c123", expectedAttempt: 0 }).success).toBe(true);
    // The account rides along so the worker can pass over capped accounts in SQL; jobs sent before it existed have none.
    expect(
      webhookDeliveryJob.payload.safeParse({ deliveryId: "c123", expectedAttempt: 0, accountId: "acc1" }).success,
    ).toBe(true);
    expect(
      webhookDeliveryJob.payload.safeParse({ deliveryId: "c123", expectedAttempt: 0, accountId: "" }).success,
    ).toBe(false);
    expect(webhookDeliveryJob.payload.safeParse({ deliveryId: "", expectedAttempt: 0 }).success).toBe(false);
    expect(webhookDeliveryJob.payload.safeParse({ deliveryId: "c123", expectedAttempt: -1 }).success).toBe(false);
    expect(
      stripeMeterEventJob.payload.safeParse({ stripeCustomerId: "cus_1", callSid: "CA1", minutes: 0, timestamp: 1 })
        .success,
    ).toBe(false);
  });

  it("derive the delivery lease from the tuning, the production lease otherwise", () => {
    expect(webhookDeliveryJob.queue({}).expireInSeconds).toBe(DELIVERY_LEASE_SECONDS);
    expect(webhookDeliveryJob.queue({ deliveryLeaseSeconds: 3 }).expireInSeconds).toBe(3);
  });
});
