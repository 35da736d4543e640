import { createHmac } from "node:crypto";

/**
 * Standard Webhooks signing: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
 * keyed with the base64 part of `whsec_…`. Several secrets (during a
 * rotation) give several space-separated signatures.
 */
export function signatureFor(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
  return "v1," + createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
}

export function webhookHeaders(opts: { id: string; body: string; secrets: string[]; now?: Date }): Record<string, string> {
  const timestamp = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  return {
    "content-type": "application/json",
    "user-agent": "Routekit-Webhooks/1",
    "webhook-id": opts.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": opts.secrets.map((s) => signatureFor(s, opts.id, timestamp, opts.body)).join(" "),
  };
}
