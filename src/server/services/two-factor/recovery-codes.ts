import { createHash, randomInt, timingSafeEqual } from "node:crypto";

/**
 * Ten single-use recovery codes (docs/decisions.md §18), for signing in without the phone. Shown once; only a
 * SHA-256 of each is stored. A plain hash is enough (no argon2): each code carries 60 random bits, far beyond
 * what a stolen table could be searched for, and unlike a password it is never reused elsewhere.
 */
const RECOVERY_CODE_COUNT = 10;

/** Crockford's base32 alphabet: no i, l, o or u, so nothing on paper reads as something else. */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const GROUP = 6;

/** One code: two groups of six from a 32-letter alphabet, `7k2m9q-x4p8td` (12 × 5 = 60 bits). */
function newRecoveryCode(): string {
  let out = "";
  for (let i = 0; i < GROUP * 2; i++) {
    if (i === GROUP) out += "-";
    out += ALPHABET[randomInt(ALPHABET.length)];
  }
  return out;
}

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
}

/**
 * What a typed code is compared as: case, spaces and dashes do not matter, and the letters Crockford's
 * alphabet leaves out are read as the digits they look like (o → 0, i and l → 1).
 */
export function normalizeRecoveryCode(typed: string): string {
  return typed.toLowerCase().replace(/[\s-]/g, "").replace(/o/g, "0").replace(/[il]/g, "1");
}

/** True when `typed` could be a recovery code at all (rather than a TOTP code or noise). */
export function looksLikeRecoveryCode(typed: string): boolean {
  const n = normalizeRecoveryCode(typed);
  return n.length === GROUP * 2 && [...n].every((c) => ALPHABET.includes(c));
}

export function hashRecoveryCode(typed: string): string {
  return createHash("sha256").update(normalizeRecoveryCode(typed)).digest("hex");
}

/** Which of the stored hashes `typed` matches, compared in constant time; null when none. */
export function matchRecoveryCode<T extends { codeHash: string }>(typed: string, stored: readonly T[]): T | null {
  const wanted = Buffer.from(hashRecoveryCode(typed), "hex");
  let found: T | null = null;
  // Every stored hash is compared, so the time taken says nothing about which one matched.
  for (const row of stored) {
    const have = Buffer.from(row.codeHash, "hex");
    if (have.length === wanted.length && timingSafeEqual(have, wanted) && found === null) found = row;
  }
  return found;
}
