import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { simulateInboundCall } from "../../src/twilio-simulator/twilio-simulator";
import { call, newAccount, numberBody, randomUsNumber, sql, type TestAccount } from "./support/api";
import { startFakeStripe, type FakeStripe } from "./support/stripe-fake";
import { startReceiver } from "./support/receiver";
import { STRIPE_TEST_ENV } from "./support/test-secrets";

// Stripe mode: the real stripe SDK against a local fake that speaks Stripe's wire format.
let stripe: FakeStripe;
let backend: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  stripe = await startFakeStripe({
    secretKey: STRIPE_TEST_ENV.STRIPE_SECRET_KEY,
    port: inject("stripeFakePort"),
    prices: {
      // Not the local defaults (49 / 0.02), so the prices seen can only have come from Stripe.
      [STRIPE_TEST_ENV.STRIPE_PRICE_BASE]: { unit_amount: 5900, recurring: { interval: "month", usage_type: "licensed" } },
      [STRIPE_TEST_ENV.STRIPE_PRICE_PER_MINUTE]: { unit_amount_decimal: "3.5", recurring: { interval: "month", usage_type: "metered", meter: "mtr_routekit" } },
    },
  });
  backend = await startReceiver((_r, res) => res.writeHead(200, { "content-type": "text/xml" }).end("<Response><Say>hi</Say></Response>"));
});
afterAll(async () => {
  await backend.close();
  await stripe.close();
});

async function sendEvent(type: string, object: Record<string, unknown>, opts: { created?: number; id?: string; secret?: string } = {}) {
  const signed = stripe.signedEvent({ type, object, secret: opts.secret ?? STRIPE_TEST_ENV.STRIPE_WEBHOOK_SECRET, created: opts.created, id: opts.id });
  const res = await call("POST", "/api/webhooks/stripe", { server: "stripe", rawBody: signed.payload, headers: { "stripe-signature": signed.header, "content-type": "application/json" } });
  return { ...res, eventId: signed.id };
}

const status = async (acct: TestAccount) => (await acct.as("GET", "/api/account")).body.account.status as string;
const customerOf = async (acct: TestAccount) => (await sql("stripe").query(`SELECT "stripeCustomerId" FROM "Account" WHERE id = $1`, [acct.id])).rows[0].stripeCustomerId as string;
const now = () => Math.floor(Date.now() / 1000);

async function paidAccount(): Promise<{ acct: TestAccount; customer: string }> {
  const acct = await newAccount({ server: "stripe" });
  const customer = await customerOf(acct);
  const res = await sendEvent("checkout.session.completed", { id: "cs_test_1", object: "checkout.session", mode: "subscription", payment_status: "paid", client_reference_id: acct.id, customer, subscription: "sub_1" });
  expect(res.status).toBe(200);
  return { acct, customer };
}

describe("Stripe mode", () => {
  it("registration creates one customer and a Checkout Session with the base and metered prices", async () => {
    const acct = await newAccount({ server: "stripe" });
    expect(acct.checkoutUrl).toMatch(new RegExp(`^${stripe.url}/c/pay/cs_`));
    const customer = await customerOf(acct);
    expect(stripe.customers.get(customer)?.metadata).toEqual({ accountId: acct.id });
    const session = stripe.requests.filter((r) => r.path === "/v1/checkout/sessions").at(-1)!;
    expect(session.params).toMatchObject({
      mode: "subscription",
      customer,
      client_reference_id: acct.id,
      line_items: [{ price: STRIPE_TEST_ENV.STRIPE_PRICE_BASE, quantity: "1" }, { price: STRIPE_TEST_ENV.STRIPE_PRICE_PER_MINUTE }],
    });
    const creations = stripe.requests.filter((r) => r.path === "/v1/customers" && r.idempotencyKey === `routekit-customer-${acct.id}`);
    expect(creations).toHaveLength(1);
    expect(await status(acct)).toBe("INACTIVE");
    // A fresh link later, for the same customer.
    const fresh = await acct.as("POST", "/api/billing/checkout");
    expect(fresh.body.url).toMatch(/\/c\/pay\/cs_/);
    expect(stripe.requests.filter((r) => r.path === "/v1/customers")).toHaveLength(stripe.customers.size);
  });

  it("checkout → ACTIVE; payment failure → SUSPENDED (403); recovery → ACTIVE; deletion → SUSPENDED", async () => {
    const { acct, customer } = await paidAccount();
    expect(await status(acct)).toBe("ACTIVE");
    expect((await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).status).toBe(201);

    await sendEvent("invoice.payment_failed", { id: "in_1", object: "invoice", customer }, { created: now() + 1 });
    expect(await status(acct)).toBe("SUSPENDED");
    expect((await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).body.error.code).toBe("ACCOUNT_SUSPENDED");
    expect((await acct.as("POST", "/api/billing/portal")).body.url).toMatch(/\/p\/session\/bps_/);

    await sendEvent("invoice.paid", { id: "in_2", object: "invoice", customer }, { created: now() + 2 });
    expect(await status(acct)).toBe("ACTIVE");

    const period = { current_period_start: now() - 86400, current_period_end: now() + 29 * 86400 };
    await sendEvent("customer.subscription.updated", { id: "sub_1", object: "subscription", customer, status: "active", items: { data: [{ ...period }] } }, { created: now() + 3 });
    const sub = await acct.as("GET", "/api/billing/subscription");
    expect(sub.body).toMatchObject({ status: "ACTIVE", monthlyBase: 59, perMinuteRate: 0.035 });
    expect(sub.body.currentPeriodStart).toBe(new Date(period.current_period_start * 1000).toISOString());

    await sendEvent("customer.subscription.deleted", { id: "sub_1", object: "subscription", customer, status: "canceled" }, { created: now() + 4 });
    expect(await status(acct)).toBe("SUSPENDED");
  });

  it("a replayed event changes nothing; a stale event after a newer one changes nothing", async () => {
    const { acct, customer } = await paidAccount();
    const failed = await sendEvent("invoice.payment_failed", { id: "in_3", object: "invoice", customer }, { created: now() + 10 });
    expect(await status(acct)).toBe("SUSPENDED");
    await sendEvent("invoice.paid", { id: "in_4", object: "invoice", customer }, { created: now() + 20 });
    expect(await status(acct)).toBe("ACTIVE");
    // Stripe redelivers the old failure: same id, applied once only.
    const replay = await sendEvent("invoice.payment_failed", { id: "in_3", object: "invoice", customer }, { created: now() + 10, id: failed.eventId });
    expect(replay.body.outcome).toBe("duplicate");
    // An older event arriving late, under a new id: older than what is applied, it changes nothing.
    const stale = await sendEvent("customer.subscription.updated", { id: "sub_1", object: "subscription", customer, status: "past_due" }, { created: now() + 15 });
    expect(stale.status).toBe(200);
    expect(await status(acct)).toBe("ACTIVE");
  });

  it("a bad signature is 400 and changes nothing", async () => {
    const acct = await newAccount({ server: "stripe" });
    const customer = await customerOf(acct);
    const forged = await sendEvent("checkout.session.completed", { object: "checkout.session", mode: "subscription", payment_status: "paid", client_reference_id: acct.id, customer }, { secret: "whsec_wrong" });
    expect(forged.status).toBe(400);
    expect(forged.body.error.code).toBe("VALIDATION_FAILED");
    const unsigned = await call("POST", "/api/webhooks/stripe", { server: "stripe", rawBody: "{}" });
    expect(unsigned.status).toBe(400);
    expect(await status(acct)).toBe("INACTIVE");
  });

  it("hasPaymentMethod follows payment_method.attached and customer.updated", async () => {
    const { acct, customer } = await paidAccount();
    expect((await acct.as("GET", "/api/billing/subscription")).body.hasPaymentMethod).toBe(false);
    await sendEvent("payment_method.attached", { id: "pm_1", object: "payment_method", customer });
    expect((await acct.as("GET", "/api/billing/subscription")).body.hasPaymentMethod).toBe(true);
    await sendEvent("customer.updated", { id: customer, object: "customer", metadata: { accountId: acct.id }, invoice_settings: { default_payment_method: null } });
    expect((await acct.as("GET", "/api/billing/subscription")).body.hasPaymentMethod).toBe(false);
  });

  it("each completed call's billed minutes reach the meter once, identified by call SID, even after a Stripe 500", async () => {
    const { acct } = await paidAccount();
    const number = randomUsNumber();
    await acct.as("POST", "/api/phone-numbers", { body: numberBody({ phoneNumber: number, onCallStartUrl: backend.url("/s"), onCallEndUrl: backend.url("/e") }) });
    stripe.failNext("/v1/billing/meter_events", 500, 3);
    const played = await simulateInboundCall({ engineUrl: acct.engineVoiceUrl, from: "+14155550100", to: number, durationSeconds: 61 });
    const deadline = Date.now() + 30_000;
    while (!stripe.meterEvents.some((e) => e.identifier === played.callSid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const events = stripe.meterEvents.filter((e) => e.identifier === played.callSid);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event_name: STRIPE_TEST_ENV.STRIPE_METER_EVENT_NAME, payload: { stripe_customer_id: await customerOf(acct), value: "2" } });
    expect(stripe.requests.filter((r) => r.path === "/v1/billing/meter_events" && r.params.identifier === played.callSid).length).toBeGreaterThan(1);
    // The usage is priced from the configured Stripe prices.
    expect((await acct.as("GET", "/api/usage")).body.records[0].costBreakdown).toMatchObject({ billedMinutes: 2, perMinuteRate: 0.035, totalCost: 0.07 });
  });

  it("registration still succeeds while Stripe is down; the link works once it is back", async () => {
    stripe.setDown(true);
    let acct: TestAccount;
    try {
      acct = await newAccount({ server: "stripe" });
      expect(acct.checkoutUrl).toMatch(new RegExp(`^${inject("stripeBaseUrl")}/billing/checkout/`));
      expect(await status(acct)).toBe("INACTIVE");
      expect((await acct.as("POST", "/api/billing/checkout")).status).toBe(502);
    } finally {
      stripe.setDown(false);
    }
    const res = await fetch(acct!.checkoutUrl, { redirect: "manual" });
    expect([303, 307]).toContain(res.status);
    expect(res.headers.get("location")).toMatch(/\/c\/pay\/cs_/);
  });
});
