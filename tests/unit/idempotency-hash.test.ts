import { createHash, createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, requestHash } from "../../src/server/services/idempotency/idempotency";

/** 2,500 levels of `{"a":…}`, as the fuzz sends. */
function nested(levels: number): unknown {
  return JSON.parse(`${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`);
}

describe("idempotency request hash (docs/decisions.md §20)", () => {
  it("is canonical: key order and undefined fields do not matter, JSON.stringify's text otherwise", () => {
    const value = { b: [1, "two", null, { d: true, c: 1.5 }], a: { y: [], x: {} }, u: undefined, 'é"': "\u2028" };
    expect(canonicalJson(value)).toBe('{"a":{"x":{},"y":[]},"b":[1,"two",null,{"c":1.5,"d":true}],"é\\"":"\u2028"}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson([[[]]])).toBe("[[[]]]");
  });

  it("hashes 2,500 levels of nesting without overflowing the stack", () => {
    const deep = nested(2500);
    expect(() => requestHash("account.update", deep, randomBytes(32))).not.toThrow();
    expect(canonicalJson(nested(20_000)).length).toBe(20_000 * 6 + 1);
  });

  it("is keyed: a dictionary over the body without the server's key finds nothing", () => {
    const key = randomBytes(32);
    const body = { email: "a@example.com", password: "hunter22hunter22" };
    const stored = requestHash("auth.login", body, key);
    // The old, unkeyed form: SHA-256 of operation, newline, canonical body.
    const unkeyed = createHash("sha256").update("auth.login").update("\n").update(canonicalJson(body)).digest("hex");
    expect(stored).not.toBe(unkeyed);
    expect(stored).toBe(createHmac("sha256", key).update("auth.login\n").update(canonicalJson(body)).digest("hex"));
    expect(requestHash("auth.login", body, randomBytes(32))).not.toBe(stored);
    expect(requestHash("auth.login", body, key)).toBe(stored);
  });
});
