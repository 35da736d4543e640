import Stripe from "stripe";
import { env } from "../../env";

// Per module graph (not globalThis), like the callback client: callers check
// the SDK's error classes with instanceof.
let client: Stripe | undefined;

/** The official SDK on STRIPE_SECRET_KEY, pointed at STRIPE_API_BASE_URL when set (tests: a local fake). */
export function stripe(): Stripe {
  if (client) return client;
  const { secretKey, apiBaseUrl } = env().stripe;
  if (!secretKey) throw new Error("Stripe is not configured (STRIPE_SECRET_KEY)");
  const base = apiBaseUrl ? new URL(apiBaseUrl) : null;
  client = new Stripe(secretKey, {
    maxNetworkRetries: 2,
    timeout: 10_000,
    ...(base && { host: base.hostname, port: Number(base.port || (base.protocol === "https:" ? 443 : 80)), protocol: base.protocol === "https:" ? "https" : "http" }),
  });
  return client;
}
