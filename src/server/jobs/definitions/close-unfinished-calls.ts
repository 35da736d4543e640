import { z } from "zod";
import { defineJob } from "../job-definition";

/**
 * Closes the calls of accounts without a Twilio connection whose final status
 * never came (docs/decisions.md §14), every minute: one run at a time across
 * all instances and at most one waiting (pg-boss's "stately"), as
 * reconciliation does; a skipped minute is covered by the next run.
 */
export const closeUnfinishedCallsJob = defineJob({
  name: "close-unfinished-calls",
  payload: z.object({}),
  queue: () => ({ policy: "stately", retryLimit: 0, expireInSeconds: 300 }),
  cron: "* * * * *",
});
