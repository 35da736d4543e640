import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv, setEnv } from "../../src/server/env";
import { billing } from "../../src/server/services/billing/billing-strategy";

const cancelStripeSubscription = (id: string | null) => billing().cancelSubscription(id);
import { startFakeStripe, type FakeStripe } from "../support/stripe-fake";
import { STRIPE_TEST_ENV } from "../support/test-secrets";

/** Closing an account in Stripe mode cancels its subscription through the real SDK (against the local fake). */
let fake: FakeStripe;
beforeAll(async () => {
  fake = await startFakeStripe({ secretKey: STRIPE_TEST_ENV.STRIPE_SECRET_KEY, prices: {} });
  setEnv(
    parseEnv(
      {
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "routekit-cancel-")),
        LOG_LEVEL: "silent",
        ...STRIPE_TEST_ENV,
        STRIPE_API_BASE_URL: fake.url,
      },
      { persistSecrets: false },
    ),
  );
});
afterAll(() => fake.close());

describe("StripeBilling.cancelSubscription", () => {
  it("cancels the subscription at Stripe", async () => {
    await cancelStripeSubscription("sub_123");
    expect(fake.requests.filter((r) => r.method === "DELETE").map((r) => r.path)).toEqual([
      "/v1/subscriptions/sub_123",
    ]);
  });

  it("does nothing without a subscription", async () => {
    const before = fake.requests.length;
    await cancelStripeSubscription(null);
    expect(fake.requests.length).toBe(before);
  });

  it("a Stripe that cannot be reached stops the closing with 502, so nobody is billed for a closed account", async () => {
    fake.failNext("/v1/subscriptions", 500, 3);
    await expect(cancelStripeSubscription("sub_456")).rejects.toMatchObject({ code: "PROVIDER_UNAVAILABLE" });
  });
});
