import { describe, expect, it } from "vitest";
import {
  API_KEY_LENGTH,
  checksumOf,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  keyPrefixOf,
  toBase62,
} from "../../src/server/auth/api-key-format";

describe("API key format", () => {
  it("is rtk_ + base62 body + 6-character checksum", () => {
    const key = generateApiKey();
    expect(key).toMatch(/^rtk_[0-9A-Za-z]{49}$/);
    expect(key).toHaveLength(API_KEY_LENGTH);
    expect(key.slice(-6)).toBe(checksumOf(key.slice(0, -6)));
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it("never repeats", () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    expect(keys.size).toBe(1000);
  });

  it("rejects any single-character typo through the checksum", () => {
    const key = generateApiKey();
    for (let i = 4; i < key.length; i++) {
      const c = key[i] === "a" ? "b" : "a";
      const typo = key.slice(0, i) + c + key.slice(i + 1);
      expect(isWellFormedApiKey(typo), `typo at ${i}`).toBe(false);
    }
  });

  it("rejects wrong prefix, length and alphabet", () => {
    const key = generateApiKey();
    expect(isWellFormedApiKey(`rtx_${key.slice(4)}`)).toBe(false);
    expect(isWellFormedApiKey(`${key}0`)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`${key.slice(0, 10)}-${key.slice(11)}`)).toBe(false);
    expect(isWellFormedApiKey("")).toBe(false);
  });

  it("matches a known CRC32 in base62", () => {
    // An independent table-driven CRC32, so the check does not trust node:zlib blindly.
    const table = Array.from({ length: 256 }, (_, n) => {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      return c >>> 0;
    });
    const crc = (s: string) => {
      let c = 0xffffffff;
      for (const b of Buffer.from(s)) c = table[(c ^ b) & 0xff]! ^ (c >>> 8);
      return (c ^ 0xffffffff) >>> 0;
    };
    const text = "rtk_hello";
    expect(checksumOf(text)).toBe(toBase62(BigInt(crc(text)), 6));
  });

  it("encodes base62 with fixed width", () => {
    expect(toBase62(0n, 6)).toBe("000000");
    expect(toBase62(61n, 2)).toBe("0z");
    expect(toBase62(62n, 2)).toBe("10");
    expect(toBase62(2n ** 32n - 1n, 6)).toHaveLength(6);
    expect(() => toBase62(62n ** 6n, 6)).toThrow();
  });

  it("prefix is the first 12 characters and the hash is SHA-256 hex", () => {
    const key = generateApiKey();
    expect(keyPrefixOf(key)).toBe(key.slice(0, 12));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(4, 20));
  });
});
