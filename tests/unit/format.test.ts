import { describe, expect, it } from "vitest";
import { duration, monthName, usd } from "@/lib/format";

describe("dashboard formatting", () => {
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
