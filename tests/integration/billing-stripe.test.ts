import { readFileSync } from "node:fs";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { simulateInboundCall } from "../../src/twilio-simulator/twilio-simulator";
import { call, newAccount, numberBody, randomUsNumber, sql, type TestAccount } from "../support/api";
import { startFakeStripe, type FakeStripe } from "../support/stripe-fake";
import { startReceiver } from "../support/receiver";
import { STRIPE_TEST_ENV } from "../support/test-secrets";
import { sessionCookie, trpc } from "../support/trpc";
import { waitForMail } from "../support/mailbox";

// Stripe mode: the real stripe SDK against a local fake that speaks Stripe's wire format.
let stripe: FakeStripe;
let backend: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  stripe = await startFakeStripe({
    secretKey: STRIPE_TEST_ENV.STRIPE_SECRET_KEY,
    port: inject("stripeFakePort"),
    prices: {
      // Not the local defaults (49 / 0.02), so the prices seen can only have come from Stripe.
      [STRIPE_TEST_ENV.STRIPE_PRICE_BASE]: {
        unit_amount: 5900,
        recurring: { interval: "month", usage_type: "licensed" },
      },
      [STRIPE_TEST_ENV.STRIPE_PRICE_PER_MINUTE]: {
        unit_amount_decimal: "3.5",
        recurring: { interval: "month", usage_type: "metered", meter: "mtr_routekit" },
      },
    },
  });
  backend = await startReceiver((_r, res) =>
    res.writeHead(200, { "content-type": "text/xml" }).end("<Response><Say>hi</Say></Response>"),
  );
});
afterAll(async () => {
  await backend.close();
  await stripe.close();
});

async function sendEvent(
  type: string,
  object: Record<string, unknown>,
  opts: { created?: number; id?: string; secret?: string } = {},
) {
  const signed = stripe.signedEvent({
    type,
    object,
    secret: opts.secret ?? STRIPE_TEST_ENV.STRIPE_WEBHOOK_SECRET,
    created: opts.created,
    id: opts.id,
  });
  const res = await call("POST", "/api/webhooks/stripe", {
    server: "stripe",
    rawBody: signed.payload,
    headers: { "stripe-signature": signed.header, "content-type": "application/json" },
  });
  return { ...res, eventId: signed.id };
}

const status = async (acct: TestAccount) => (await acct.as("GET", "/api/account")).body.account.status as string;
const customerOf = async (acct: TestAccount) =>
  (await sql("stripe").query(`SELECT "stripeCustomerId" FROM "Account" WHERE id = $1`, [acct.id])).rows[0]
    .stripeCustomerId as string;
const now = () => Math.floor(Date.now() / 1000);

const subscriptionStatusOf = async (acct: TestAccount) =>
  (await acct.as("GET", "/api/billing/subscription")).body.subscriptionStatus as string | null;
const newSubId = () => `sub_${Math.random().toString(36).slice(2, 12)}`;
const invoice = (id: string, customer: string, subscription: string) => ({
  id,
  object: "invoice",
  customer,
  parent: { type: "subscription_details", subscription_details: { subscription } },
});
const subscription = (id: string, customer: string, status: string, extra: Record<string, unknown> = {}) => ({
  id,
  object: "subscription",
  customer,
  status,
  ...extra,
});

async function paidAccount(): Promise<{ acct: TestAccount; customer: string; sub: string }> {
  const acct = await newAccount({ server: "stripe" });
  const customer = await customerOf(acct);
  const sub = newSubId();
  const res = await sendEvent("checkout.session.completed", {
    id: "cs_test_1",
    object: "checkout.session",
    mode: "subscription",
    payment_status: "paid",
    client_reference_id: acct.id,
    customer,
    subscription: sub,
  });
  expect(res.status).toBe(200);
  return { acct, customer, sub };
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
      line_items: [
        { price: STRIPE_TEST_ENV.STRIPE_PRICE_BASE, quantity: "1" },
        { price: STRIPE_TEST_ENV.STRIPE_PRICE_PER_MINUTE },
      ],
    });
    const creations = stripe.requests.filter(
      (r) => r.path === "/v1/customers" && r.idempotencyKey === `routekit-customer-${acct.id}`,
    );
    expect(creations).toHaveLength(1);
    expect(await status(acct)).toBe("INACTIVE");
    // A fresh link later, for the same customer.
    const fresh = await acct.as("POST", "/api/billing/checkout");
    expect(fresh.body.url).toMatch(/\/c\/pay\/cs_/);
    expect(stripe.requests.filter((r) => r.path === "/v1/customers")).toHaveLength(stripe.customers.size);
  });

  it("checkout → ACTIVE; a failed charge (past_due) stays ACTIVE with the status shown; unpaid → SUSPENDED; paid → ACTIVE; deleted → SUSPENDED", async () => {
    const { acct, customer, sub } = await paidAccount();
    expect(await status(acct)).toBe("ACTIVE");
    expect(await subscriptionStatusOf(acct)).toBe("active");
    expect((await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).status).toBe(201);

    await sendEvent("invoice.payment_failed", invoice("in_1", customer, sub), { created: now() + 1 });
    expect(await status(acct)).toBe("ACTIVE");
    expect(await subscriptionStatusOf(acct)).toBe("past_due");
    await sendEvent("customer.subscription.updated", subscription(sub, customer, "past_due"), { created: now() + 2 });
    expect(await status(acct)).toBe("ACTIVE");
    expect((await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).status).toBe(201);

    await sendEvent("customer.subscription.updated", subscription(sub, customer, "unpaid"), { created: now() + 3 });
    expect(await status(acct)).toBe("SUSPENDED");
    expect((await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).body.error.code).toBe(
      "ACCOUNT_SUSPENDED",
    );
    expect((await acct.as("POST", "/api/billing/portal")).body.url).toMatch(/\/p\/session\/bps_/);

    await sendEvent("invoice.paid", invoice("in_2", customer, sub), { created: now() + 4 });
    expect(await status(acct)).toBe("ACTIVE");
    expect(await subscriptionStatusOf(acct)).toBe("active");

    const period = { current_period_start: now() - 86400, current_period_end: now() + 29 * 86400 };
    await sendEvent(
      "customer.subscription.updated",
      subscription(sub, customer, "active", { items: { data: [{ ...period }] } }),
      { created: now() + 5 },
    );
    const summary = await acct.as("GET", "/api/billing/subscription");
    expect(summary.body).toMatchObject({
      status: "ACTIVE",
      monthlyBase: 59,
      perMinuteRate: 0.035,
      subscriptionStatus: "active",
    });
    expect(summary.body.currentPeriodStart).toBe(new Date(period.current_period_start * 1000).toISOString());

    await sendEvent("customer.subscription.deleted", subscription(sub, customer, "canceled"), { created: now() + 6 });
    expect(await status(acct)).toBe("SUSPENDED");
    expect(await subscriptionStatusOf(acct)).toBe("canceled");
  });

  it("a failed payment raises alert.payment_failed once (Stripe's redelivery is a duplicate), listed and mailed through the SMTP server", async () => {
    const { acct, customer, sub } = await paidAccount();
    const failed = await sendEvent(
      "invoice.payment_failed",
      { ...invoice("in_af1", customer, sub), amount_due: 5900, currency: "usd" },
      {
        created: now() + 1,
      },
    );
    expect(failed.status).toBe(200);
    // The same Stripe event again: applied once, so alerted once.
    await sendEvent(
      "invoice.payment_failed",
      { ...invoice("in_af1", customer, sub), amount_due: 5900, currency: "usd" },
      {
        created: now() + 1,
        id: failed.eventId,
      },
    );
    const alerts = (await acct.as("GET", "/api/alerts")).body.alerts;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      type: "alert.payment_failed",
      subject: { type: "account", id: acct.id },
      details: { invoiceId: "in_af1", amountDue: 59, currency: "usd" },
    });
    expect(alerts[0].howToFix).toMatch(/payment method/);
    const [mail] = await waitForMail(acct.email, /Routekit alert: A payment failed/, { timeoutMs: 30_000 });
    expect(mail!.text).toMatch(/What to do: Update your payment method/);
    expect(mail!.text).toMatch(/\/dashboard\/alerts/);
  });

  it("a paid invoice mails a receipt once (Stripe's redelivery is a duplicate); a $0 invoice mails nothing", async () => {
    const { acct, customer, sub } = await paidAccount();
    await sendEvent(
      "invoice.paid",
      { ...invoice("in_zero", customer, sub), amount_paid: 0, currency: "usd" },
      {
        created: now() + 1,
      },
    );
    const body = { ...invoice("in_rcpt", customer, sub), amount_paid: 5900, currency: "usd" };
    const paid = await sendEvent("invoice.paid", body, { created: now() + 2 });
    expect(paid.status).toBe(200);
    await sendEvent("invoice.paid", body, { created: now() + 2, id: paid.eventId });
    const [mail] = await waitForMail(acct.email, /Routekit payment received/, { timeoutMs: 30_000 });
    expect(mail!.subject).toBe("Routekit payment received: 59.00 USD");
    expect(mail!.text).toMatch(/payment of 59\.00 USD on \d{4}-\d{2}-\d{2} \(UTC\), for invoice in_rcpt/);
    expect(mail!.text).toMatch(/\/dashboard\/billing/);
    // The duplicate and the $0 invoice sent nothing more.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await waitForMail(acct.email, /Routekit payment received/)).toHaveLength(1);
  });

  it("a cancelled account never comes back through a late event of the old subscription; a new checkout brings it back", async () => {
    const { acct, customer, sub } = await paidAccount();
    await sendEvent("customer.subscription.deleted", subscription(sub, customer, "canceled"), { created: now() + 10 });
    expect(await status(acct)).toBe("SUSPENDED");
    // Late events of the old subscription, each newer by the clock than the deletion.
    await sendEvent("invoice.paid", invoice("in_late", customer, sub), { created: now() + 11 });
    await sendEvent("customer.subscription.updated", subscription(sub, customer, "active"), { created: now() + 12 });
    await sendEvent("customer.subscription.created", subscription(sub, customer, "active"), { created: now() + 13 });
    await sendEvent(
      "checkout.session.completed",
      {
        id: "cs_old",
        object: "checkout.session",
        mode: "subscription",
        payment_status: "paid",
        client_reference_id: acct.id,
        customer,
        subscription: sub,
      },
      { created: now() + 14 },
    );
    // An invoice of no subscription at all, and an update of some other subscription, neither.
    await sendEvent(
      "invoice.paid",
      { id: "in_oneoff", object: "invoice", customer, parent: null },
      { created: now() + 15 },
    );
    await sendEvent("customer.subscription.updated", subscription(newSubId(), customer, "active"), {
      created: now() + 16,
    });
    expect(await status(acct)).toBe("SUSPENDED");
    expect(await subscriptionStatusOf(acct)).toBe("canceled");

    const next = newSubId();
    await sendEvent(
      "checkout.session.completed",
      {
        id: "cs_new",
        object: "checkout.session",
        mode: "subscription",
        payment_status: "paid",
        client_reference_id: acct.id,
        customer,
        subscription: next,
      },
      { created: now() + 17 },
    );
    expect(await status(acct)).toBe("ACTIVE");
    expect(
      (await sql("stripe").query(`SELECT "stripeSubscriptionId" FROM "Account" WHERE id = $1`, [acct.id])).rows[0]
        .stripeSubscriptionId,
    ).toBe(next);
    // The old subscription's deletion arriving again (a new event id) no longer matters.
    await sendEvent("customer.subscription.deleted", subscription(sub, customer, "canceled"), { created: now() + 18 });
    expect(await status(acct)).toBe("ACTIVE");
  });

  it("a closed account never comes back: a new checkout, a paid invoice or a new active subscription leaves it closed (docs/decisions.md §20)", async () => {
    const { acct, customer, sub } = await paidAccount();
    await sendEvent("customer.subscription.deleted", subscription(sub, customer, "canceled"), { created: now() + 10 });
    const closed = await trpc(
      "mutation",
      "settings.delete",
      { confirmEmail: acct.email, password: acct.password },
      { server: "stripe", cookie: await sessionCookie(acct.email, acct.password, { server: "stripe" }) },
    );
    expect(closed.data, closed.text).toEqual({ deleted: true });
    const row = async () =>
      (
        await sql("stripe").query(
          `SELECT status, "stripeSubscriptionId", "subscriptionStatus", "deletedAt" FROM "Account" WHERE id = $1`,
          [acct.id],
        )
      ).rows[0];
    const before = await row();
    expect(before.status).toBe("SUSPENDED");

    const next = newSubId();
    const checkout = await sendEvent(
      "checkout.session.completed",
      {
        id: "cs_after_close",
        object: "checkout.session",
        mode: "subscription",
        payment_status: "paid",
        client_reference_id: acct.id,
        customer,
        subscription: next,
      },
      { created: now() + 20 },
    );
    // Acknowledged (Stripe must not retry it), and applied to nothing.
    expect(checkout.status).toBe(200);
    await sendEvent("customer.subscription.created", subscription(next, customer, "active"), { created: now() + 21 });
    await sendEvent("invoice.paid", invoice("in_after_close", customer, next), { created: now() + 22 });
    expect(await row()).toEqual(before);
  });

  it("a newly created active subscription reactivates a cancelled account; a new incomplete one does not", async () => {
    const { acct, customer, sub } = await paidAccount();
    await sendEvent("customer.subscription.deleted", subscription(sub, customer, "canceled"), { created: now() + 10 });
    await sendEvent("customer.subscription.created", subscription(newSubId(), customer, "incomplete"), {
      created: now() + 11,
    });
    expect(await status(acct)).toBe("SUSPENDED");
    await sendEvent("customer.subscription.created", subscription(newSubId(), customer, "active"), {
      created: now() + 12,
    });
    expect(await status(acct)).toBe("ACTIVE");
    expect(await subscriptionStatusOf(acct)).toBe("active");
  });

  it("a replayed event changes nothing; a stale event after a newer one changes nothing", async () => {
    const { acct, customer, sub } = await paidAccount();
    const unpaid = await sendEvent("customer.subscription.updated", subscription(sub, customer, "unpaid"), {
      created: now() + 10,
    });
    expect(await status(acct)).toBe("SUSPENDED");
    await sendEvent("invoice.paid", invoice("in_4", customer, sub), { created: now() + 20 });
    expect(await status(acct)).toBe("ACTIVE");
    // Stripe redelivers the old one: same id, applied once only.
    const replay = await sendEvent("customer.subscription.updated", subscription(sub, customer, "unpaid"), {
      created: now() + 10,
      id: unpaid.eventId,
    });
    expect(replay.body.outcome).toBe("duplicate");
    // An older event arriving late, under a new id: older than what is applied, it changes nothing.
    const stale = await sendEvent("customer.subscription.updated", subscription(sub, customer, "unpaid"), {
      created: now() + 15,
    });
    expect(stale.status).toBe(200);
    expect(await status(acct)).toBe("ACTIVE");
  });

  it("a bad signature is 400 and changes nothing", async () => {
    const acct = await newAccount({ server: "stripe" });
    const customer = await customerOf(acct);
    const forged = await sendEvent(
      "checkout.session.completed",
      {
        object: "checkout.session",
        mode: "subscription",
        payment_status: "paid",
        client_reference_id: acct.id,
        customer,
      },
      { secret: "whsec_wrong" },
    );
    expect(forged.status).toBe(400);
    expect(forged.body.error.code).toBe("VALIDATION_FAILED");
    const unsigned = await call("POST", "/api/webhooks/stripe", { server: "stripe", rawBody: "{}" });
    expect(unsigned.status).toBe(400);
    expect(await status(acct)).toBe("INACTIVE");
  });

  it("hasPaymentMethod: the card Checkout saves on the subscription counts, and a customer without a default does not clear it", async () => {
    const { acct, customer, sub } = await paidAccount();
    const hasPm = async () => (await acct.as("GET", "/api/billing/subscription")).body.hasPaymentMethod as boolean;
    expect(await hasPm()).toBe(false);
    await sendEvent(
      "customer.subscription.created",
      subscription(sub, customer, "active", { default_payment_method: "pm_card_1" }),
    );
    expect(await hasPm()).toBe(true);
    await sendEvent("customer.updated", {
      id: customer,
      object: "customer",
      metadata: { accountId: acct.id },
      invoice_settings: { default_payment_method: null },
    });
    expect(await hasPm()).toBe(true);
  });

  it("hasPaymentMethod: payment_method.attached and a customer's invoice default set it", async () => {
    for (const [type, object] of [
      ["payment_method.attached", (customer: string) => ({ id: "pm_1", object: "payment_method", customer })],
      [
        "customer.updated",
        (customer: string) => ({
          id: customer,
          object: "customer",
          metadata: {},
          invoice_settings: { default_payment_method: "pm_2" },
        }),
      ],
    ] as const) {
      const { acct, customer } = await paidAccount();
      await sendEvent(type, object(customer));
      expect((await acct.as("GET", "/api/billing/subscription")).body.hasPaymentMethod, type).toBe(true);
    }
  });

  it("Stripe refusing our request (4xx: wrong price, bad key) is a 502 that says so, distinct from Stripe being unreachable", async () => {
    const acct = await newAccount({ server: "stripe" });
    stripe.failNext("/v1/checkout/sessions", 400);
    const refused = await acct.as("POST", "/api/billing/checkout");
    expect(refused.status).toBe(502);
    expect(refused.body.error.code).toBe("PROVIDER_UNAVAILABLE");
    expect(refused.body.error.message).toMatch(/refused our request/);
    stripe.failNext("/v1/billing_portal/sessions", 401);
    expect((await acct.as("POST", "/api/billing/portal")).body.error.message).toMatch(/refused our request/);

    // The SDK retries a 500 twice; three make it give up.
    stripe.failNext("/v1/checkout/sessions", 500, 3);
    const down = await acct.as("POST", "/api/billing/checkout");
    expect(down.status).toBe(502);
    expect(down.body.error.message).toMatch(/could not be reached/);
    expect((await acct.as("POST", "/api/billing/checkout")).status).toBe(200);
  });

  it("each completed call's billed minutes reach the meter once, identified by call SID, even after a Stripe 500", async () => {
    const { acct } = await paidAccount();
    const number = randomUsNumber();
    await acct.as("POST", "/api/phone-numbers", {
      body: numberBody({ phoneNumber: number, onCallStartUrl: backend.url("/s"), onCallEndUrl: backend.url("/e") }),
    });
    stripe.failNext("/v1/billing/meter_events", 500, 3);
    const played = await simulateInboundCall({
      engineUrl: acct.engineVoiceUrl,
      from: "+14155550100",
      to: number,
      durationSeconds: 61,
    });
    const deadline = Date.now() + 30_000;
    while (!stripe.meterEvents.some((e) => e.identifier === played.callSid) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    const events = stripe.meterEvents.filter((e) => e.identifier === played.callSid);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      event_name: STRIPE_TEST_ENV.STRIPE_METER_EVENT_NAME,
      payload: { stripe_customer_id: await customerOf(acct), value: "2" },
    });
    expect(
      stripe.requests.filter((r) => r.path === "/v1/billing/meter_events" && r.params.identifier === played.callSid)
        .length,
    ).toBeGreaterThan(1);
    // The usage is priced from the configured Stripe prices.
    expect((await acct.as("GET", "/api/usage")).body.records[0].costBreakdown).toMatchObject({
      billedMinutes: 2,
      perMinuteRate: 0.035,
      totalCost: 0.07,
    });
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

describe("signed but malformed Stripe events (docs/decisions.md §3: bad input is never a 500)", () => {
  /** A payload sent exactly as written, signed with the webhook secret by the real SDK. */
  async function sendRaw(payload: string) {
    const header = new Stripe(STRIPE_TEST_ENV.STRIPE_SECRET_KEY).webhooks.generateTestHeaderString({
      payload,
      secret: STRIPE_TEST_ENV.STRIPE_WEBHOOK_SECRET,
    });
    return call("POST", "/api/webhooks/stripe", {
      server: "stripe",
      rawBody: payload,
      headers: { "stripe-signature": header, "content-type": "application/json" },
    });
  }
  const envelope = (fields: Record<string, unknown>) => ({
    id: `evt_${Math.random().toString(36).slice(2, 14)}`,
    object: "event",
    created: now(),
    livemode: false,
    pending_webhooks: 1,
    ...fields,
  });
  const marker = () => `payload-marker-${Math.random().toString(36).slice(2, 10)}`;

  it.each([
    [
      "a number for the id",
      (m: string) =>
        JSON.stringify(envelope({ id: 12345, type: "invoice.paid", data: { object: { id: "in_1", customer: m } } })),
    ],
    [
      "an object for the id",
      (m: string) =>
        JSON.stringify(envelope({ id: { evil: m }, type: "customer.updated", data: { object: { id: "cus_1" } } })),
    ],
    ["no data.object", (m: string) => JSON.stringify(envelope({ type: "invoice.paid", data: { previous: m } }))],
    ["no data", (m: string) => JSON.stringify(envelope({ type: "checkout.session.completed", note: m }))],
    [
      "a lone surrogate in the customer",
      (m: string) =>
        JSON.stringify(
          envelope({ type: "invoice.paid", data: { object: { id: "in_1", customer: `cus_${m}` } } }),
        ).replace(`cus_${m}`, `cus_${m}\\ud800`),
    ],
    [
      "a lone low surrogate in a key of an ignored type",
      (m: string) =>
        JSON.stringify(envelope({ type: "charge.succeeded", data: { object: { id: "ch_1", [`k${m}`]: 1 } } })).replace(
          `k${m}`,
          `k${m}\\udc00`,
        ),
    ],
    [
      "a number for the subscription id",
      (m: string) =>
        JSON.stringify(
          envelope({
            type: "customer.subscription.updated",
            data: { object: { id: 7, status: "active", customer: m } },
          }),
        ),
    ],
    [
      "a subscription without a status",
      (m: string) =>
        JSON.stringify(
          envelope({ type: "customer.subscription.deleted", data: { object: { id: "sub_1", customer: m } } }),
        ),
    ],
    [
      "a period PostgreSQL cannot store",
      (m: string) =>
        JSON.stringify(
          envelope({
            type: "customer.subscription.updated",
            data: {
              object: {
                id: "sub_1",
                status: "active",
                customer: m,
                items: { data: [{ current_period_start: 1e15, current_period_end: 1e15 }] },
              },
            },
          }),
        ),
    ],
    [
      "a creation time past year 9999",
      (m: string) =>
        JSON.stringify(
          envelope({ created: 1e14, type: "invoice.paid", data: { object: { id: "in_1", customer: m } } }),
        ),
    ],
    [
      "an array for the checkout's metadata account",
      (m: string) =>
        JSON.stringify(
          envelope({
            type: "checkout.session.completed",
            data: { object: { mode: "subscription", subscription: "sub_1", metadata: { accountId: [m] } } },
          }),
        ),
    ],
  ])("%s → 400 VALIDATION_FAILED, and the log never quotes the payload", async (_name, build) => {
    const m = marker();
    const res = await sendRaw(build(m));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_FAILED");
    expect(JSON.stringify(res.body)).not.toContain(m);
    expect(readFileSync(inject("stripeServerLog"), "utf8")).not.toContain(m);
  });

  it("an unknown type with a sound envelope is still acknowledged and ignored", async () => {
    const res = await sendRaw(
      JSON.stringify(envelope({ type: "charge.succeeded", data: { object: { id: "ch_1", amount: 100 } } })),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, outcome: "ignored" });
  });
});
