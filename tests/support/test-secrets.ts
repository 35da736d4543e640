/** The servers under test and in-process tests share it, so both can read what the other encrypted. */
export const TEST_AUTH_SECRET = "integration-tests-only-secret-0123456789abcdef";

/** The Stripe-mode server's configuration; its fake Stripe knows the same key and prices. */
export const STRIPE_TEST_ENV = {
  STRIPE_SECRET_KEY: "sk_test_routekit_integration",
  STRIPE_WEBHOOK_SECRET: "whsec_routekit_integration_tests",
  STRIPE_PRICE_BASE: "price_routekit_base",
  STRIPE_PRICE_PER_MINUTE: "price_routekit_minute",
  STRIPE_METER_EVENT_NAME: "routekit_minutes",
} as const;

/** The Stripe-mode server asks Prometheus for this bearer token on /metrics; the others answer loopback only. */
export const TEST_METRICS_TOKEN = "metrics-token-for-integration-tests";
