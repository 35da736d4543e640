import { describe, expect, it } from "vitest";
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
  ])("refuses %s with 400 VALIDATION_FAILED on cursor", (_name, cursor) => {
    expect(() => decodeKeysetCursor(cursor)).toThrow(expect.objectContaining({ code: "VALIDATION_FAILED", details: [{ path: "cursor", message: "invalid cursor" }] }));
  });
});
