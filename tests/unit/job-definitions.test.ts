import { describe, expect, it } from "vitest";
import { JOB_DEFINITIONS } from "../../src/server/jobs/definitions";
import { stripeMeterEventJob } from "../../src/server/jobs/definitions/stripe-meter-event";
import { mailJob } from "../../src/server/jobs/definitions/mail";
import { RETIRED_QUEUES } from "../../src/server/jobs/job-queue";
import { JOB_WORKERS } from "../../src/server/workers/job-workers";

describe("job definitions", () => {
  it("keep the queue names jobs already wait in on existing databases, one definition each", () => {
    expect(JOB_DEFINITIONS.map((j) => j.name)).toEqual([
      "webhook-attempt-prune",
      "stripe-meter-event",
      "twilio-reconcile",
      "close-unfinished-calls",
      "usage-threshold-mail",
      "mail",
      "alert-scan",
      "number-config-check",
      "audit-log-prune",
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
    expect(mailJob.payload.safeParse({ messageId: "not-a-uuid", kind: "verification", to: "a@b.c" }).success).toBe(
      false,
    );
    expect(
      stripeMeterEventJob.payload.safeParse({ stripeCustomerId: "cus_1", callSid: "CA1", minutes: 0, timestamp: 1 })
        .success,
    ).toBe(false);
  });

  it("never reuse a retired queue's name: its old jobs are deleted at start (event deliveries are their own queue now)", () => {
    for (const name of RETIRED_QUEUES) expect(JOB_DEFINITIONS.map((j) => j.name)).not.toContain(name);
  });
});
