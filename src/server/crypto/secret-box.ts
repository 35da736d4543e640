import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from "node:crypto";
import { env } from "../env";

/**
 * AES-256-GCM for secrets we must read back (webhook secrets, provider tokens).
 * Format: `v1.<iv>.<tag>.<ciphertext>`, base64url parts; the version leaves
 * room for key rotation.
 */
// Importing a raw key costs most of a decryption (about 50 µs of 60): each key is imported once.
const imported = new WeakMap<Buffer, KeyObject>();
function keyObjectOf(key: Buffer): KeyObject {
  let object = imported.get(key);
  if (!object) imported.set(key, (object = createSecretKey(key)));
  return object;
}

export function encryptSecret(plaintext: string, key: Buffer = env().encryptionKey): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyObjectOf(key), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
}

export function decryptSecret(sealed: string, key: Buffer = env().encryptionKey): string {
  const [version, iv, tag, ciphertext] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || ciphertext === undefined) throw new Error("unrecognised sealed secret");
  const decipher = createDecipheriv("aes-256-gcm", keyObjectOf(key), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
}

/** `whsec_` + base64 of 32 random bytes, the Standard Webhooks secret format. */
export function generateWebhookSecret(): string {
  return "whsec_" + randomBytes(32).toString("base64");
}
