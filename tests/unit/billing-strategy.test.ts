import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { parseEnv, setEnv } from "../../src/server/env";
import { AppError } from "../../src/server/errors/app-error";
import {
  billing,
  chooseBillingStrategy,
  type BillingStrategy,
} from "../../src/server/services/billing/billing-strategy";
import { LocalBilling } from "../../src/server/services/billing/local-billing";
import { StripeBilling } from "../../src/server/services/billing/stripe-billing";

const STRIPE = {
  STRIPE_SECRET_KEY: "sk_test_routekit_unit",
  STRIPE_WEBHOOK_SECRET: "whsec_routekit_unit",
  STRIPE_PRICE_BASE: "price_b",
  STRIPE_PRICE_PER_MINUTE: "price_m",
  STRIPE_METER_EVENT_NAME: "routekit_minutes",
};
const configure = (extra: Record<string, string> = {}) =>
  parseEnv({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "routekit-billing-")),
    LOG_LEVEL: "silent",
    MONTHLY_BASE: "30",
    PER_MINUTE_RATE: "0.05",
    ...extra,
  });

/** A database client that fails the test if anything is written through it. */
const untouchable = { query: () => Promise.reject(new Error("nothing may be written in this mode")) } as never;

describe("the billing strategy is chosen once, from the env", () => {
  it("no Stripe key: local billing; a Stripe key: Stripe", () => {
    expect(chooseBillingStrategy(configure())).toBeInstanceOf(LocalBilling);
    expect(chooseBillingStrategy(configure(STRIPE))).toBeInstanceOf(StripeBilling);
  });

  it("billing() answers the same strategy on every call, and chooses again only when the configuration is replaced", () => {
    setEnv(configure());
    const local = billing();
    expect(local).toBeInstanceOf(LocalBilling);
    expect(billing()).toBe(local);

    setEnv(configure(STRIPE));
    const stripe = billing();
    expect(stripe).toBeInstanceOf(StripeBilling);
    expect(billing()).toBe(stripe);
  });
});

describe("LocalBilling", () => {
  const local: BillingStrategy = new LocalBilling();

  it("charges the configured prices, and paying checkout stands in for a payment method", async () => {
    setEnv(configure());
    await expect(local.plan()).resolves.toEqual({ monthlyBase: 30, perMinuteRate: 0.05 });
    expect(local.hasPaymentMethod({ status: "INACTIVE", hasPaymentMethod: false })).toBe(false);
    expect(local.hasPaymentMethod({ status: "ACTIVE", hasPaymentMethod: false })).toBe(true);
    expect(local.hasPaymentMethod({ status: "SUSPENDED", hasPaymentMethod: false })).toBe(true);
    expect(local.dashboardNote).toContain("Local billing mode");
  });

  it("feeds no meter and refuses Stripe's webhooks with 404 before reading the body", async () => {
    await expect(
      local.recordBilledMinutes(untouchable, { stripeCustomerId: "cus_1", callSid: "CA1", minutes: 3, at: new Date() }),
    ).resolves.toBeUndefined();
    let read = false;
    const refused = local.stripeWebhookEvent(async () => {
      read = true;
      return "{}";
    }, "t=1,v1=x");
    await expect(refused).rejects.toBeInstanceOf(AppError);
    await expect(refused).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(read).toBe(false);
  });

  it("has no Stripe portal to refuse: its own portal answers tokens", async () => {
    await expect(local.viewPortal("not-a-token")).resolves.toBeNull();
  });
});

describe("StripeBilling", () => {
  const stripeBilling: BillingStrategy = new StripeBilling();

  it("takes the payment method from Stripe and has no portal page of ours", async () => {
    setEnv(configure(STRIPE));
    expect(stripeBilling.hasPaymentMethod({ status: "ACTIVE", hasPaymentMethod: false })).toBe(false);
    expect(stripeBilling.hasPaymentMethod({ status: "INACTIVE", hasPaymentMethod: true })).toBe(true);
    await expect(stripeBilling.viewPortal("any-token")).resolves.toBeNull();
    await expect(stripeBilling.applyPortalAction("any-token", "cancel")).resolves.toBe("not-found");
    expect(stripeBilling.dashboardNote).toBeNull();
  });

  it("meters nothing for a call without a customer or without billed minutes", async () => {
    await stripeBilling.recordBilledMinutes(untouchable, {
      stripeCustomerId: null,
      callSid: "CA1",
      minutes: 3,
      at: new Date(),
    });
    await stripeBilling.recordBilledMinutes(untouchable, {
      stripeCustomerId: "cus_1",
      callSid: "CA2",
      minutes: 0,
      at: new Date(),
    });
  });

  it("accepts a webhook signed with STRIPE_WEBHOOK_SECRET and refuses any other with 400", async () => {
    setEnv(configure(STRIPE));
    const payload = JSON.stringify({ id: "evt_1", object: "event", type: "invoice.paid", data: { object: {} } });
    const header = (secret: string) => Stripe.webhooks.generateTestHeaderString({ payload, secret });
    await expect(
      stripeBilling.stripeWebhookEvent(async () => payload, header(STRIPE.STRIPE_WEBHOOK_SECRET)),
    ).resolves.toMatchObject({ id: "evt_1" });
    await expect(
      stripeBilling.stripeWebhookEvent(async () => payload, header("whsec_someone_else")),
    ).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
    await expect(stripeBilling.stripeWebhookEvent(async () => payload, "")).rejects.toMatchObject({
      code: "VALIDATION_FAILED",
    });
  });
});

describe("only the strategy looks at the billing mode", () => {
  const root = path.resolve(import.meta.dirname, "../../src");
  // env.ts parses the mode; billing-strategy.ts chooses from it. Nobody else may branch on it.
  const ALLOWED = new Set(["server/env.ts", "server/services/billing/billing-strategy.ts"]);
  const MODE_CHECK = /\bbillingMode\b|\.stripe\.secretKey\b|process\.env\.STRIPE_SECRET_KEY/;

  function sources(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === "generated" ? [] : sources(full);
      return /\.(ts|tsx|mts)$/.test(entry.name) ? [full] : [];
    });
  }

  it("finds the mode only in env.ts and billing-strategy.ts", () => {
    const hits = sources(root)
      .filter((file) => MODE_CHECK.test(readFileSync(file, "utf8")))
      .map((file) => path.relative(root, file).split(path.sep).join("/"));
    // Both known places must be found, so an empty walk cannot pass.
    expect(hits.sort()).toEqual([...ALLOWED].sort());
  });
});
