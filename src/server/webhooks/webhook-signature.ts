import { createHmac, createSecretKey, type KeyObject } from "node:crypto";

/**
 * HMAC keys by secret. Handing createHmac a raw key makes Node import it anew
 * on every call, about 40 µs against 8 µs for the HMAC itself, paid on every
 * `call.started` on the voice request's path. A secret is kept as a KeyObject
 * once; at most KEYS_KEPT of them, the oldest forgotten first (they live in
 * the same process as the key that decrypts them anyway).
 */
const KEYS_KEPT = 10_000;
const keys = new Map<string, KeyObject>();
function hmacKeyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64"));
    if (keys.size >= KEYS_KEPT) keys.delete(keys.keys().next().value!);
    keys.set(secret, key);
  }
  return key;
}

/**
 * Standard Webhooks signing: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
 * keyed with the base64 part of `whsec_…`. Several secrets (during a
 * rotation) give several space-separated signatures.
 */
function signatureFor(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac("sha256", hmacKeyOf(secret)).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

export function webhookHeaders(opts: {
  id: string;
  body: string;
  secrets: string[];
  now?: Date;
}): Record<string, string> {
  const timestamp = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  return {
    "content-type": "application/json",
    "user-agent": "Routekit-Webhooks/1",
    "webhook-id": opts.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": opts.secrets.map((s) => signatureFor(s, opts.id, timestamp, opts.body)).join(" "),
  };
}
