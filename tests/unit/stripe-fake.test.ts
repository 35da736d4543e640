import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeStripe, type FakeStripe } from "../support/stripe-fake";

// The fake is only useful if the REAL SDK accepts what it says: every test drives it through `stripe`.
const KEY = "sk_test_fake_0123456789";
const BASE = "price_base";
const METERED = "price_minute";
let fake: FakeStripe;

beforeAll(async () => {
  fake = await startFakeStripe({
    secretKey: KEY,
    prices: {
      [BASE]: { unit_amount: 4900, recurring: { interval: "month", usage_type: "licensed" } },
      [METERED]: { unit_amount_decimal: "2", recurring: { interval: "month", usage_type: "metered", meter: "mtr_1" } },
    },
  });
});
afterAll(() => fake.close());

// Retries off unless a test is about them: failures surface on the first attempt.
const sdk = (config: Stripe.StripeConfig = {}, key = KEY) =>
  new Stripe(key, { host: "127.0.0.1", port: fake.port, protocol: "http", maxNetworkRetries: 0, ...config });
const rejection = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail("expected the SDK to throw"),
    (e: unknown) => e,
  );
const newCustomer = () => sdk().customers.create({ email: "a@example.com", metadata: { accountId: "acct_1" } });
const now = () => Math.floor(Date.now() / 1000);

describe("fake Stripe via the real SDK", () => {
  it("creates, retrieves and updates customers; params arrive parsed from the bracket encoding", async () => {
    const created = await newCustomer();
    expect(created).toMatchObject({
      id: expect.stringMatching(/^cus_/),
      object: "customer",
      email: "a@example.com",
      metadata: { accountId: "acct_1" },
      invoice_settings: { default_payment_method: null },
    });
    expect(fake.requests.at(-1)).toMatchObject({
      method: "POST",
      path: "/v1/customers",
      params: { email: "a@example.com", metadata: { accountId: "acct_1" } },
    });
    await sdk().customers.update(created.id, {
      metadata: { plan: "pro" },
      invoice_settings: { default_payment_method: "pm_1" },
    });
    const read = await sdk().customers.retrieve(created.id);
    expect(read).toMatchObject({
      metadata: { accountId: "acct_1", plan: "pro" },
      invoice_settings: { default_payment_method: "pm_1" },
    });
    expect(fake.customers.get(created.id)?.invoice_settings.default_payment_method).toBe("pm_1");
    const missing = await rejection(sdk().customers.retrieve("cus_nope"));
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 404, code: "resource_missing" });
  });

  it("an Idempotency-Key replays the first response: a retried registration makes one customer", async () => {
    const before = fake.customers.size;
    const params = { email: "b@example.com", metadata: { accountId: "acct_2" } };
    const first = await sdk().customers.create(params, { idempotencyKey: "routekit-customer-acct_2" });
    const again = await sdk().customers.create(params, { idempotencyKey: "routekit-customer-acct_2" });
    expect(again.id).toBe(first.id);
    expect(fake.customers.size).toBe(before + 1);
    expect(fake.requests.filter((r) => r.idempotencyKey === "routekit-customer-acct_2")).toHaveLength(2);
    // Same key, different request: Stripe refuses rather than replaying.
    const misuse = await rejection(
      sdk().customers.create({ email: "c@example.com" }, { idempotencyKey: "routekit-customer-acct_2" }),
    );
    expect(misuse).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
  });

  it("creates a subscription Checkout Session; line_items are echoed and parsed as arrays", async () => {
    const { id: customer } = await newCustomer();
    const session = await sdk().checkout.sessions.create({
      mode: "subscription",
      customer,
      client_reference_id: "acct_1",
      metadata: { accountId: "acct_1" },
      line_items: [{ price: BASE, quantity: 1 }, { price: METERED }],
      success_url: "http://x/ok",
      cancel_url: "http://x/no",
    });
    expect(session).toMatchObject({
      object: "checkout.session",
      mode: "subscription",
      status: "open",
      customer,
      client_reference_id: "acct_1",
      success_url: "http://x/ok",
    });
    expect(session.url).toBe(`${fake.url}/c/pay/${session.id}`);
    expect(session.id).toMatch(/^cs_test_/);
    expect(fake.requests.at(-1)?.params.line_items).toEqual([{ price: BASE, quantity: "1" }, { price: METERED }]);
  });

  it("rejects Checkout Sessions Stripe would reject", async () => {
    const { id: customer } = await newCustomer();
    const create = (line_items: Stripe.Checkout.SessionCreateParams.LineItem[], cust = customer) =>
      rejection(sdk().checkout.sessions.create({ mode: "subscription", customer: cust, line_items }));
    const metered = await create([
      { price: BASE, quantity: 1 },
      { price: METERED, quantity: 1 },
    ]);
    expect(metered).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(metered).toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/^Quantity should not be specified where usage_type is `metered`/),
      param: "line_items[1][quantity]",
    });
    expect(await create([{ price: "price_nope", quantity: 1 }])).toMatchObject({
      statusCode: 400,
      code: "resource_missing",
      param: "line_items[0][price]",
    });
    expect(await create([{ price: BASE, quantity: 1 }], "cus_nope")).toMatchObject({
      code: "resource_missing",
      param: "customer",
    });
    expect(await create([])).toMatchObject({ code: "parameter_missing", param: "line_items" });
  });

  it("creates Billing Portal sessions for existing customers only", async () => {
    const { id: customer } = await newCustomer();
    const portal = await sdk().billingPortal.sessions.create({ customer, return_url: "http://x/back" });
    expect(portal).toMatchObject({ object: "billing_portal.session", customer, return_url: "http://x/back" });
    expect(portal.url).toMatch(new RegExp(`^${fake.url}/p/session/bps_`));
    expect(await rejection(sdk().billingPortal.sessions.create({ customer: "cus_nope" }))).toMatchObject({
      statusCode: 400,
      code: "resource_missing",
      param: "customer",
    });
  });

  it("retrieves the configured prices; 404 for others", async () => {
    const base = await sdk().prices.retrieve(BASE);
    expect(base).toMatchObject({
      object: "price",
      currency: "usd",
      unit_amount: 4900,
      type: "recurring",
      active: true,
      recurring: { usage_type: "licensed" },
    });
    // SDK v23 turns unit_amount_decimal into a Stripe.Decimal (valueOf() is the string, so Number() works).
    expect(String(base.unit_amount_decimal)).toBe("4900");
    const metered = await sdk().prices.retrieve(METERED);
    expect(metered).toMatchObject({ unit_amount: 2, recurring: { usage_type: "metered", meter: "mtr_1" } });
    expect(Number(metered.unit_amount_decimal)).toBe(2);
    const missing = await rejection(sdk().prices.retrieve("price_nope"));
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 404, code: "resource_missing" });
  });

  it("records meter events once per identifier", async () => {
    const { id: customer } = await newCustomer();
    const event = {
      event_name: "routekit_minutes",
      identifier: "CA_dup_1",
      timestamp: now() - 60,
      payload: { stripe_customer_id: customer, value: "2" },
    };
    const created = await sdk().billing.meterEvents.create(event);
    expect(created).toMatchObject({ object: "billing.meter_event", livemode: false, ...event });
    // A new request (new SDK idempotency key) with the same identifier: Stripe's duplicate error, not a second event.
    const dup = await rejection(sdk().billing.meterEvents.create(event));
    expect(dup).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(dup).toMatchObject({ statusCode: 400, message: "An event already exists with identifier CA_dup_1." });
    expect(fake.meterEvents.filter((e) => e.identifier === "CA_dup_1")).toEqual([
      { event_name: "routekit_minutes", identifier: "CA_dup_1", timestamp: event.timestamp, payload: event.payload },
    ]);
    // No identifier: one is generated. Missing value / unknown customer: 400s.
    expect(
      (
        await sdk().billing.meterEvents.create({
          event_name: "routekit_minutes",
          payload: { stripe_customer_id: customer, value: "1" },
        })
      ).identifier,
    ).toMatch(/^idmp_/);
    expect(
      await rejection(sdk().billing.meterEvents.create({ event_name: "m", payload: { stripe_customer_id: customer } })),
    ).toMatchObject({ code: "parameter_missing", param: "payload[value]" });
    expect(
      await rejection(
        sdk().billing.meterEvents.create({ event_name: "m", payload: { stripe_customer_id: "cus_nope", value: "1" } }),
      ),
    ).toMatchObject({ code: "resource_missing" });
  });

  it("a wrong API key is a StripeAuthenticationError; an unknown URL a 404", async () => {
    const auth = await rejection(sdk({}, "sk_test_wrong").customers.create({}));
    expect(auth).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(auth).toMatchObject({ statusCode: 401 });
    const unknown = await rejection(sdk().rawRequest("GET", "/v1/invoices"));
    expect(unknown).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(unknown).toMatchObject({ statusCode: 404, message: expect.stringMatching(/^Unrecognized request URL/) });
  });

  it("failNext: a 500 is a StripeAPIError without retries; the SDK's own retries ride it out", async () => {
    fake.failNext("/v1/customers", 500);
    const err = await rejection(newCustomer());
    expect(err).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(err).toMatchObject({ statusCode: 500, type: "StripeAPIError" });
    expect((await newCustomer()).id).toMatch(/^cus_/); // the failure was used up

    // stripe v23 on Node defaults to maxNetworkRetries = 2 (3 attempts, 0.5 s then ~1 s backoff), retrying
    // 5xx, 409 and connection errors with the same Idempotency-Key. The service sets it explicitly
    // (stripe-client.ts: maxNetworkRetries: 2) so a retried POST cannot duplicate, and a brief blip never surfaces.
    const retrying = new Stripe(KEY, { host: "127.0.0.1", port: fake.port, protocol: "http" });
    expect(retrying.getMaxNetworkRetries()).toBe(2);
    fake.failNext("/v1/customers", 500, 2);
    const before = fake.requests.length;
    const customer = await retrying.customers.create({ email: "r@example.com" });
    const attempts = fake.requests.slice(before);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.idempotencyKey)).size).toBe(1);
    expect(fake.customers.has(customer.id)).toBe(true);
  });

  it("setDown: requests fail as connection errors until restored", async () => {
    fake.setDown(true);
    try {
      const before = fake.requests.length;
      const err = await rejection(newCustomer());
      expect(err).toBeInstanceOf(Stripe.errors.StripeConnectionError);
      // Even with maxNetworkRetries: 0 the SDK retries a reset connection once (same Idempotency-Key).
      expect(fake.requests.length - before).toBe(2);
    } finally {
      fake.setDown(false);
    }
    expect((await newCustomer()).id).toMatch(/^cus_/);
  });

  it("signedEvent round-trips through stripe.webhooks.constructEvent; tampering or a wrong secret is rejected", () => {
    const secret = "whsec_test_secret";
    const signed = fake.signedEvent({
      type: "invoice.paid",
      object: { id: "in_1", object: "invoice", customer: "cus_1" },
      secret,
      created: 1_700_000_000,
    });
    const event = sdk().webhooks.constructEvent(signed.payload, signed.header, secret);
    expect(event).toMatchObject({
      id: signed.id,
      object: "event",
      type: "invoice.paid",
      created: 1_700_000_000,
      livemode: false,
      data: { object: { id: "in_1" } },
    });
    expect(signed.id).toMatch(/^evt_/);
    const tampered = signed.payload.replace("cus_1", "cus_2");
    expect(() => sdk().webhooks.constructEvent(tampered, signed.header, secret)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    expect(() => sdk().webhooks.constructEvent(signed.payload, signed.header, "whsec_other")).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
  });
});
