import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, generateWebhookSecret } from "../../src/server/crypto/secret-box";

describe("secret box", () => {
  const key = randomBytes(32);
  it("round-trips and never shows the plaintext", () => {
    const secret = generateWebhookSecret();
    const sealed = encryptSecret(secret, key);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(decryptSecret(sealed, key)).toBe(secret);
    expect(encryptSecret(secret, key)).not.toBe(sealed); // fresh IV each time
  });
  it("refuses a tampered ciphertext or the wrong key", () => {
    const sealed = encryptSecret("whsec_abc", key);
    const parts = sealed.split(".");
    parts[3] = Buffer.from(`x${Buffer.from(parts[3]!, "base64url").toString("latin1")}`).toString("base64url");
    expect(() => decryptSecret(parts.join("."), key)).toThrow();
    expect(() => decryptSecret(sealed, randomBytes(32))).toThrow();
  });
  it("remembers what a sealed value opened to, for that key only", () => {
    const sealed = encryptSecret("whsec_remembered", key);
    expect(decryptSecret(sealed, key)).toBe("whsec_remembered");
    expect(decryptSecret(sealed, key)).toBe("whsec_remembered");
    // Remembered under the right key, still refused under another one.
    expect(() => decryptSecret(sealed, randomBytes(32))).toThrow();
    const parts = sealed.split(".");
    parts[2] = Buffer.alloc(16).toString("base64url");
    expect(() => decryptSecret(parts.join("."), key)).toThrow();
  });
  it("keeps a bounded number of remembered values", () => {
    const own = randomBytes(32);
    const first = encryptSecret("first", own);
    expect(decryptSecret(first, own)).toBe("first");
    for (let i = 0; i < 10_050; i++) decryptSecret(encryptSecret(`v${i}`, own), own);
    // Long forgotten, so opened again (and still right).
    expect(decryptSecret(first, own)).toBe("first");
  });
  it("makes Standard Webhooks secrets", () => {
    const s = generateWebhookSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(s.slice(6), "base64")).toHaveLength(32);
  });
});
