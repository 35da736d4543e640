import { createHmac, timingSafeEqual } from "node:crypto";
import { EVENT_TYPES } from "../generated/events.js";
import type { RoutekitEvent } from "./events.js";

/** Standard Webhooks' tolerance: an event signed more than five minutes ago or ahead is refused. */
const TOLERANCE_SECONDS = 5 * 60;

/** The event is not one Routekit sent as it stands: bad signature, stale timestamp, malformed body or unknown type. */
export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
}

type HeaderValue = string | string[] | undefined;
/** A Headers instance (fetch, Next.js) or a plain object (Node's req.headers, Express). */
export type WebhookHeaders = Headers | Record<string, HeaderValue>;

export type VerifyOptions = {
  /** Seconds of clock difference accepted (default 300). */
  toleranceSeconds?: number;
  /** The time to check against (default now). */
  now?: Date;
};

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const plain = headers as Record<string, HeaderValue>;
  const key = Object.keys(plain).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : plain[key];
  return Array.isArray(value) ? value.join(" ") : value;
}

function secretKey(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
  if (key.length === 0) throw new WebhookVerificationError("the webhook secret is empty or not base64 (whsec_…)");
  return key;
}

const isEventType = (type: unknown): type is RoutekitEvent["type"] =>
  typeof type === "string" && (EVENT_TYPES as readonly string[]).includes(type);

/**
 * Verifies an event Routekit sent (Standard Webhooks: `webhook-id`, `webhook-timestamp`, and
 * `webhook-signature` with one or more space-separated `v1,<base64 HMAC-SHA256>` entries over
 * `id.timestamp.body`) and returns it typed. `body` must be the raw body as received (a string or the
 * bytes): parsed and re-serialised JSON no longer matches its signature. `secret` is the account's
 * webhookSecret, or an account endpoint's own secret, `whsec_…`. Throws WebhookVerificationError.
 */
export function verifyEvent(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): RoutekitEvent {
  if (typeof body !== "string" && !(body instanceof Uint8Array))
    throw new WebhookVerificationError("pass the raw body (a string or Buffer), not parsed JSON");
  const text = typeof body === "string" ? body : Buffer.from(body).toString("utf8");
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header");

  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError("webhook-timestamp is not Unix seconds");
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? TOLERANCE_SECONDS;
  const age = now - Number(timestamp);
  if (age > tolerance) throw new WebhookVerificationError("the event's timestamp is too old");
  if (age < -tolerance) throw new WebhookVerificationError("the event's timestamp is in the future");

  const expected = createHmac("sha256", secretKey(secret)).update(`${id}.${timestamp}.${text}`).digest();
  const matches = signatures.split(" ").some((entry) => {
    const [version, signature] = entry.split(",", 2);
    if (version !== "v1" || !signature) return false;
    const given = Buffer.from(signature, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError("no signature matches: wrong secret or a changed body");

  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError("the body is not JSON");
  }
  const { type, data } = (event ?? {}) as { type?: unknown; data?: unknown };
  if (typeof event !== "object" || event === null || typeof data !== "object" || data === null)
    throw new WebhookVerificationError("the body is not an event: { id, type, createdAt, data }");
  if (!isEventType(type)) throw new WebhookVerificationError(`unknown event type: ${String(type).slice(0, 100)}`);
  return event as RoutekitEvent;
}
