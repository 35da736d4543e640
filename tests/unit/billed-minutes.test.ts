import { describe, expect, it } from "vitest";
import { billedMinutes, costBreakdown } from "../../src/server/services/usage/billed-minutes";
import { periodBounds, usagePeriod } from "../../src/server/services/usage/usage-periods";
import { isStatusCallback, statusRank, TERMINAL_RANK } from "../../src/server/services/calls/call-status";

describe("billed minutes", () => {
  it("rounds up per call; 0 seconds bills 0", () => {
    expect([0, 1, 59, 60, 61, 119, 120, 121, 3600].map(billedMinutes)).toEqual([0, 1, 1, 1, 2, 2, 2, 3, 60]);
  });
  it("61 s + 1 s calls bill 3 minutes", () => {
    expect(billedMinutes(61) + billedMinutes(1)).toBe(3);
  });
  it("prices a call without float drift", () => {
    expect(costBreakdown({ durationSeconds: 61, perMinuteRate: 0.02 })).toEqual({
      durationSeconds: 61,
      billedMinutes: 2,
      perMinuteRate: 0.02,
      usageCost: 0.04,
      totalCost: 0.04,
      currency: "usd",
    });
    expect(costBreakdown({ durationSeconds: 180, perMinuteRate: 0.1 }).usageCost).toBe(0.3);
  });
  it("keys totals by UTC calendar month", () => {
    expect(usagePeriod(new Date("2026-11-30T23:59:59Z"))).toBe("2026-11");
    expect(usagePeriod(new Date("2026-12-01T00:00:00Z"))).toBe("2026-12");
    expect(periodBounds(new Date("2026-12-15T10:00:00Z"))).toEqual({
      start: new Date("2026-12-01T00:00:00Z"),
      end: new Date("2027-01-01T00:00:00Z"),
    });
  });
});

describe("call status ordering", () => {
  it("only moves forward; every final status outranks progress", () => {
    expect(statusRank("queued")).toBeLessThan(statusRank("ringing"));
    expect(statusRank("ringing")).toBeLessThan(statusRank("in-progress"));
    for (const s of ["completed", "busy", "no-answer", "failed", "canceled"]) expect(statusRank(s)).toBe(TERMINAL_RANK);
    expect(statusRank("bogus")).toBe(-1);
  });
  it("tells status callbacks from voice requests", () => {
    expect(isStatusCallback({ CallStatus: "ringing" })).toBe(false);
    expect(isStatusCallback({ CallStatus: "in-progress" })).toBe(false);
    expect(isStatusCallback({ CallStatus: "ringing", CallbackSource: "call-progress-events" })).toBe(true);
    expect(isStatusCallback({ CallStatus: "completed" })).toBe(true);
  });
});
