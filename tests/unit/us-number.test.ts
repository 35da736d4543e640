import { describe, expect, it } from "vitest";
import { normalizeUsNumber } from "../../src/shared/us-number";
import { US_E164 } from "../../src/shared/schemas/e164";

describe("normalizeUsNumber: the dashboard reads US numbers as people write them", () => {
  it.each([
    ["(415) 555-0123", "+14155550123"],
    ["415-555-0123", "+14155550123"],
    ["415.555.0123", "+14155550123"],
    ["4155550123", "+14155550123"],
    ["1 415 555 0123", "+14155550123"],
    ["+1 (415) 555-0123", "+14155550123"],
    ["  +14155550123  ", "+14155550123"],
    ["+1 415‐555‐0123", "+14155550123"],
  ])("%s → %s", (typed, e164) => {
    expect(normalizeUsNumber(typed)).toBe(e164);
    expect(US_E164.test(normalizeUsNumber(typed))).toBe(true);
  });

  it.each([
    ["415-555-012", "415-555-012"],
    ["+44 20 7946 0958", "+442079460958"],
    ["call me", "call me"],
    ["415 555 0123 ext 4", "415 555 0123 ext 4"],
    ["", ""],
  ])("leaves what is not a US number for the E.164 rule to report: %s", (typed, kept) => {
    expect(normalizeUsNumber(typed)).toBe(kept);
    expect(US_E164.test(normalizeUsNumber(typed))).toBe(false);
  });
});
