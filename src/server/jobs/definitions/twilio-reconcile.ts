import { z } from "zod";
import { defineJob } from "../job-definition";

/**
 * Reconciliation with Twilio (docs/decisions.md §10), every minute: one run at a time
 * across all instances and at most one waiting (pg-boss's "stately"), so a
 * slow run never piles up minutes; a skipped minute is covered by the next run.
 */
export const twilioReconcileJob = defineJob({
  name: "twilio-reconcile",
  payload: z.object({}),
  queue: () => ({ policy: "stately", retryLimit: 0, expireInSeconds: 300 }),
  cron: "* * * * *",
});
