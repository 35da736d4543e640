import { describe, expect, it } from "vitest";
import {
  hashRecoveryCode,
  looksLikeRecoveryCode,
  matchRecoveryCode,
  newRecoveryCodes,
  normalizeRecoveryCode,
} from "../../src/server/services/two-factor/recovery-codes";
import { matchTotp, newTotpSecret, otpauthUrl, totpCode, totpStep } from "../../src/server/services/two-factor/totp";

// RFC 6238 appendix B: the SHA-1 seed is the ASCII "12345678901234567890", and the codes have 8 digits.
const RFC_SECRET = new TextEncoder().encode("12345678901234567890");
const RFC_VECTORS: [seconds: number, code: string][] = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];

describe("TOTP (RFC 6238) with an injected clock", () => {
  it("produces the RFC's SHA-1 test vectors", () => {
    for (const [seconds, code] of RFC_VECTORS)
      expect(totpCode(RFC_SECRET, { at: seconds * 1000, digits: 8 })).toBe(code);
  });

  it("the 6-digit code is the vector's last six digits (what apps show)", () => {
    for (const [seconds, code] of RFC_VECTORS) expect(totpCode(RFC_SECRET, { at: seconds * 1000 })).toBe(code.slice(2));
  });

  it("accepts a code one step either side of now, and not two", () => {
    const secret = newTotpSecret();
    const at = 1_800_000_000_000; // the start of a step: 60,000,000 × 30 s
    const code = totpCode(secret, { at });
    const step = totpStep(at);
    expect(matchTotp(secret, code, { at })).toBe(step);
    expect(matchTotp(secret, code, { at: at + 29_999 })).toBe(step);
    expect(matchTotp(secret, code, { at: at + 30_000 })).toBe(step); // the next step: one behind
    expect(matchTotp(secret, code, { at: at - 30_000 })).toBe(step); // the previous step: one ahead
    expect(matchTotp(secret, code, { at: at + 60_000 })).toBeNull();
    expect(matchTotp(secret, code, { at: at - 30_001 })).toBeNull();
  });

  it("refuses a replay: the step accepted last, or an earlier one, never matches again", () => {
    const secret = newTotpSecret();
    const at = 1_800_000_000_000;
    const step = totpStep(at);
    const now = totpCode(secret, { at });
    const previous = totpCode(secret, { at: at - 30_000 });
    const next = totpCode(secret, { at: at + 30_000 });
    expect(matchTotp(secret, now, { at, afterStep: step })).toBeNull();
    expect(matchTotp(secret, previous, { at, afterStep: step })).toBeNull();
    expect(matchTotp(secret, next, { at, afterStep: step })).toBe(step + 1);
    expect(matchTotp(secret, now, { at, afterStep: step - 1 })).toBe(step);
  });

  it("refuses what is not six digits, and another secret's code", () => {
    const secret = newTotpSecret();
    const at = 1_800_000_000_000;
    const code = totpCode(secret, { at });
    expect(matchTotp(secret, ` ${code}`, { at })).toBeNull();
    expect(matchTotp(secret, `${code}0`, { at })).toBeNull();
    expect(matchTotp(secret, "abcdef", { at })).toBeNull();
    expect(matchTotp(newTotpSecret(), code, { at })).toBeNull();
  });

  it("makes 160-bit base32 secrets and an otpauth URL apps import", () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    const url = new URL(otpauthUrl(secret, "you@example.com"));
    expect(url.protocol).toBe("otpauth:");
    expect(decodeURIComponent(url.pathname)).toContain("Routekit:you@example.com");
    expect(url.searchParams.get("secret")).toBe(secret);
    expect(url.searchParams.get("issuer")).toBe("Routekit");
  });
});

describe("recovery codes", () => {
  it("ten distinct codes of 60 random bits from an unambiguous alphabet", () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) {
      expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{6}-[0-9a-hjkmnp-tv-z]{6}$/);
      expect(looksLikeRecoveryCode(code)).toBe(true);
    }
    expect(looksLikeRecoveryCode("123456")).toBe(false);
  });

  it("hashes what was typed as written down: case, spaces, dashes and look-alike letters do not matter", () => {
    const code = "7k2m9q-x4p810";
    expect(normalizeRecoveryCode(" 7K2M9Q X4PBIO ".replace("B", "8"))).toBe("7k2m9qx4p810");
    expect(hashRecoveryCode("7K2M9QX4P8lo")).toBe(hashRecoveryCode(code));
    expect(hashRecoveryCode(code)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashRecoveryCode(code)).not.toContain("7k2m9q");
  });

  it("finds the stored code it matches, and none for another", () => {
    const codes = newRecoveryCodes();
    const stored = codes.map((c, i) => ({ id: `r${i}`, codeHash: hashRecoveryCode(c) }));
    expect(matchRecoveryCode(codes[3]!.toUpperCase(), stored)?.id).toBe("r3");
    expect(matchRecoveryCode(newRecoveryCodes()[0]!, stored)).toBeNull();
    expect(matchRecoveryCode(codes[0]!, [])).toBeNull();
  });
});
