import { describe, expect, it } from "vitest";
import { duration, monthName, sinceStart, statusLabel, usd } from "@/shared/format";

describe("dashboard formatting", () => {
  it("writes every status in one case, whatever case the API gives it", () => {
    expect(statusLabel("ACTIVE")).toBe("Active");
    expect(statusLabel("DELIVERED")).toBe("Delivered");
    expect(statusLabel("in-progress")).toBe("In progress");
    expect(statusLabel("no-answer")).toBe("No answer");
    expect(statusLabel("completed")).toBe("Completed");
  });
  it("writes money and durations", () => {
    expect(usd(49.06)).toBe("$49.06");
    expect(usd(0.02, { precise: true })).toBe("$0.02");
    expect(usd(0.0125, { precise: true })).toBe("$0.0125");
    expect(duration(61)).toBe("1 min 1 s");
    expect(duration(9)).toBe("9 s");
  });
  it("names a month key as people say it, in UTC", () => {
    expect(monthName("2026-11")).toBe("November 2026");
    expect(monthName("2027-01")).toBe("January 2027");
    expect(monthName("not a month")).toBe("not a month");
  });
});

describe("sinceStart", () => {
  it("gives a timeline entry's offset from the call's start to the millisecond", () => {
    const start = "2026-11-27T10:00:00.000Z";
    expect(sinceStart(start, "2026-11-27T10:00:00.012Z")).toBe("+0.012 s");
    expect(sinceStart(start, "2026-11-27T10:00:01.500Z")).toBe("+1.500 s");
    expect(sinceStart(start, "2026-11-27T10:03:02.504Z")).toBe("+3 min 2.504 s");
    // An entry recorded a moment before the call's row (Twilio's request time) is shown at the start.
    expect(sinceStart(start, "2026-11-27T09:59:59.990Z")).toBe("+0.000 s");
  });
});
