import { describe, expect, it } from "vitest";
import { ZListCallsInput } from "../../src/shared/schemas/calls";
import { decodeKeysetCursor, encodeKeysetCursor } from "../../src/server/services/pagination/keyset-cursor";

describe("keyset cursor (calls and usage pages)", () => {
  it("round-trips createdAt (to the millisecond) and id, as URL-safe text", () => {
    const c = { createdAt: new Date("2026-11-22T10:00:00.123Z"), id: "cmwra7d2g00082c7d1w9b5o2r" };
    const encoded = encodeKeysetCursor(c);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeKeysetCursor(encoded)).toEqual(c);
  });

  it.each([
    ["not base64url", "a+b/c="],
    ["empty", ""],
    ["not a cursor", "not-a-cursor"],
    ["JSON", Buffer.from("{}").toString("base64url")],
    ["no separator", Buffer.from("2026-11-22T10:00:00.000Z").toString("base64url")],
    ["a bad time", Buffer.from("yesterday|cabc").toString("base64url")],
    ["a time in another form", Buffer.from("2026-11-22T10:00:00Z|cabc").toString("base64url")],
    ["an empty id", Buffer.from("2026-11-22T10:00:00.000Z|").toString("base64url")],
    ["an id too long", Buffer.from(`2026-11-22T10:00:00.000Z|${"x".repeat(65)}`).toString("base64url")],
    ["an id with SQL in it", Buffer.from("2026-11-22T10:00:00.000Z|x' OR 1=1").toString("base64url")],
    // Times a Date holds and PostgreSQL's timestamptz does not (they were 500s): the cursor decoder bounds them.
    [
      "JavaScript's earliest date, year -271821",
      Buffer.from(`${new Date(-8.64e15).toISOString()}|cabc`).toString("base64url"),
    ],
    ["year -4714, before PostgreSQL's 4713 BC", Buffer.from("-004714-11-24T00:00:00.000Z|cabc").toString("base64url")],
    ["year 0", Buffer.from("0000-01-01T00:00:00.000Z|cabc").toString("base64url")],
    ["before 1970", Buffer.from("1969-12-31T23:59:59.999Z|cabc").toString("base64url")],
    ["after 9999", Buffer.from("+010000-01-01T00:00:00.000Z|cabc").toString("base64url")],
    ["JavaScript's latest date", Buffer.from(`${new Date(8.64e15).toISOString()}|cabc`).toString("base64url")],
  ])("refuses %s with 400 VALIDATION_FAILED on cursor", (_name, cursor) => {
    expect(() => decodeKeysetCursor(cursor)).toThrow(
      expect.objectContaining({ code: "VALIDATION_FAILED", details: [{ path: "cursor", message: "invalid cursor" }] }),
    );
  });
});

describe("query times (since, until) on every list", () => {
  it.each([
    "0000-01-01T00:00:00Z",
    "1969-12-31T23:59:59Z",
    "1970-01-01T00:30:00+01:00",
    "9999-12-31T23:59:59-01:00",
    "-271821-04-20T00:00:00Z",
    "yesterday",
  ])("refuses %s", (since) => {
    expect(ZListCallsInput.safeParse({ since }).success).toBe(false);
    expect(ZListCallsInput.safeParse({ until: since }).success).toBe(false);
  });
  it.each(["1970-01-01T00:00:00Z", "2026-11-22T10:00:00.123+02:00", "9999-12-31T23:59:59Z"])("takes %s", (since) => {
    expect(ZListCallsInput.safeParse({ since, until: since }).success).toBe(true);
  });
});
