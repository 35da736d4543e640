import { describe, expect, it } from "vitest";
import { reportQueueError } from "@/server/jobs/job-queue";

// During a database outage pg-boss reports each failed poll: the log gets the first line of a kind, then one a minute.
describe("reportQueueError", () => {
  it("logs the first error of a kind, counts its repeats for a minute, then logs it again", () => {
    const t0 = 1_000_000;
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    expect(reportQueueError(refused, t0)).toBe(true);
    expect(reportQueueError(refused, t0 + 1_000)).toBe(false);
    expect(reportQueueError(refused, t0 + 59_000)).toBe(false);
    // Another kind is its own line at once.
    expect(reportQueueError(new Error("canceling statement due to statement timeout"), t0 + 2_000)).toBe(true);
    expect(reportQueueError(refused, t0 + 60_000)).toBe(true);
    expect(reportQueueError(refused, t0 + 60_001)).toBe(false);
  });
});
