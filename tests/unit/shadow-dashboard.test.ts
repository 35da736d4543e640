import { describe, expect, it } from "vitest";
import { z } from "zod";
import { replayRefusal } from "../../src/app/dashboard/calls/replay-refusal";
import {
  localInputOf,
  percent,
  readSampleRate,
  readUntil,
  shadowFormValues,
} from "../../src/app/dashboard/numbers/[id]/shadow/shadow-form-values";

/** Runs a reader as the form's schema does: its value, or the messages of the issues it raised. */
function read<T>(reader: (text: string, ctx: z.RefinementCtx) => T, text: string) {
  const r = z
    .string()
    .transform((v, ctx) => reader(v, ctx))
    .safeParse(text);
  return r.success ? { value: r.data } : { issues: r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) };
}

describe("the shadow form's values (docs/decisions.md §23)", () => {
  it("starts from the saved shadow, or from every call with no end", () => {
    expect(shadowFormValues(null)).toEqual({ onCallStartUrl: "", samplePercent: "100", until: "" });
    const until = "2027-01-02T03:04:00.000Z";
    const v = shadowFormValues({ onCallStartUrl: "https://s.example.com/start", sampleRate: 0.125, until });
    expect(v.samplePercent).toBe("12.5");
    expect(new Date(v.until).toISOString()).toBe(until);
  });

  it("reads the sample rate as a percentage, empty as every call, and refuses what is out of range", () => {
    expect(read(readSampleRate, "")).toEqual({ value: 1 });
    expect(read(readSampleRate, "25")).toEqual({ value: 0.25 });
    expect(read(readSampleRate, " 12.5 % ")).toEqual({ value: 0.125 });
    expect(read(readSampleRate, "0")).toEqual({ value: 0 });
    for (const bad of ["101", "-1", "half", "NaN"])
      expect(read(readSampleRate, bad)).toEqual({ issues: ["samplePercent: must be a percentage from 0 to 100"] });
    expect(percent(1)).toBe("100");
    expect(percent(0.3333)).toBe("33.33");
  });

  it("reads the end as the browser's local time and sends it as an instant; empty is none", () => {
    expect(read(readUntil, "")).toEqual({ value: null });
    const local = "2027-03-04T05:06";
    const sent = read(readUntil, local);
    expect(sent).toEqual({ value: new Date(local).toISOString() });
    expect(localInputOf((sent as { value: string }).value)).toBe(local);
    expect(read(readUntil, "next tuesday")).toEqual({ issues: ["until: must be a date and time"] });
  });
});

describe("a replay's refusals in plain words", () => {
  it("says what the limit is, which calls can be replayed, and why a URL was refused", () => {
    expect(replayRefusal({ code: "RATE_LIMITED", message: "Too many requests; retry later." })).toMatch(
      /^Ten replays a minute .* Try again in a minute\.$/,
    );
    expect(replayRefusal({ code: "NOT_FOUND", message: "Not found." })).toMatch(/inbound calls of the last 30 days/);
    expect(replayRefusal({ code: "VALIDATION_FAILED", message: "onCallStartUrl must not be a private address" })).toBe(
      "The URL was refused: onCallStartUrl must not be a private address",
    );
  });

  it("leaves every other failure to the API's own sentence, and a refused URL to its field", () => {
    const refused = { path: "onCallStartUrl", message: "must not point to a private network" };
    expect(replayRefusal({ code: "VALIDATION_FAILED", message: "Invalid input.", details: [refused] })).toBeNull();
    expect(replayRefusal({ code: "FORBIDDEN", message: "Viewers can't replay calls." })).toBeNull();
    expect(replayRefusal(null)).toBeNull();
  });
});
