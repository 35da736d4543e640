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
  return ["v1", iv, cipher.getAuthTag(), ciphertext]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

/**
 * A sealed value never changes (a new secret is a new random IV, so a new
 * string), so what one decrypted to is remembered: GET /api/account shows two
 * secrets on every request, and the engine reads one per call. Per key, at
 * most DECRYPTED_KEPT values, the oldest forgotten first. These plaintexts
 * live in the same process as the key that opens them anyway.
 */
const DECRYPTED_KEPT = 10_000;
const decrypted = new WeakMap<Buffer, Map<string, string>>();

export function decryptSecret(sealed: string, key: Buffer = env().encryptionKey): string {
  let known = decrypted.get(key);
  if (!known) decrypted.set(key, (known = new Map()));
  const hit = known.get(sealed);
  if (hit !== undefined) return hit;
  const plaintext = openSealed(sealed, key);
  if (known.size >= DECRYPTED_KEPT) known.delete(known.keys().next().value!);
  known.set(sealed, plaintext);
  return plaintext;
}

function openSealed(sealed: string, key: Buffer): string {
  const [version, iv, tag, ciphertext] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || ciphertext === undefined) throw new Error("unrecognised sealed secret");
  const decipher = createDecipheriv("aes-256-gcm", keyObjectOf(key), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
}

/** `whsec_` + base64 of 32 random bytes, the Standard Webhooks secret format. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}
