import Stripe from "stripe";
import { env } from "../../env";
import { rememberPerGraph } from "../../runtime/remember";

/** The API version the SDK we install was generated for; webhook endpoints should be created on it too. */
const STRIPE_API_VERSION = "2026-10-28.endive";

/**
 * The official SDK on STRIPE_SECRET_KEY, pointed at STRIPE_API_BASE_URL when set (tests: a local fake).
 * Per module graph, like the callback client: callers check the SDK's error classes with instanceof.
 */
export function stripe(): Stripe {
  return rememberPerGraph("stripe", createStripe);
}

function createStripe(): Stripe {
  const { secretKey, apiBaseUrl } = env().stripe;
  if (!secretKey) throw new Error("Stripe is not configured (STRIPE_SECRET_KEY)");
  const base = apiBaseUrl ? new URL(apiBaseUrl) : null;
  return new Stripe(secretKey, {
    // Pinned: our handlers read this version's shapes, whatever the Stripe account's default. The SDK types the
    // option as its own version, so upgrading stripe is a type error here until the pin is bumped on purpose.
    apiVersion: STRIPE_API_VERSION,
    maxNetworkRetries: 2,
    timeout: 10_000,
    ...(base && {
      host: base.hostname,
      port: Number(base.port || (base.protocol === "https:" ? 443 : 80)),
      protocol: base.protocol === "https:" ? "https" : "http",
    }),
  });
}
