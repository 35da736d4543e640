import { describe, expect, it } from "vitest";
import { call, newAccount, newActiveAccount, numberBody } from "./support/api";

// Local billing mode (no Stripe key): checkout and portal are pages of the service.
describe("local billing mode", () => {
  it("end to end: register → 402 on numbers → open checkout → 201", async () => {
    const acct = await newAccount();
    const before = await acct.as("POST", "/api/phone-numbers", { body: numberBody() });
    expect(before.status).toBe(402);
    expect(before.body.error.code).toBe("PAYMENT_REQUIRED");
    const page = await fetch(acct.checkoutUrl);
    expect(await page.text()).toContain("Payment complete");
    expect((await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).status).toBe(201);
    const sub = await acct.as("GET", "/api/billing/subscription");
    expect(sub.body).toMatchObject({ status: "ACTIVE", monthlyBase: 49, perMinuteRate: 0.02, totalCalls: 0, totalMinutes: 0, totalBilledMinutes: 0, hasPaymentMethod: true });
    expect(Date.parse(sub.body.currentPeriodEnd) - Date.parse(sub.body.currentPeriodStart)).toBeGreaterThanOrEqual(28 * 24 * 3600_000);
  });

  it("POST /api/billing/checkout gives a fresh working link", async () => {
    const acct = await newAccount();
    const res = await acct.as("POST", "/api/billing/checkout");
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(/\/billing\/checkout\//);
    await (await fetch(res.body.url)).text();
    expect((await acct.as("GET", "/api/account")).body.account.status).toBe("ACTIVE");
  });

  it("the portal cancels (→ SUSPENDED, 403 on paid operations) and resumes (→ ACTIVE)", async () => {
    const acct = await newActiveAccount();
    const portal = await acct.as("POST", "/api/billing/portal");
    expect(portal.status).toBe(200);
    const page = await (await fetch(portal.body.url)).text();
    expect(page).toContain("$49.00 a month");
    expect(page).toContain("Cancel subscription");

    const action = `${portal.body.url}/action`;
    const cancelled = await fetch(action, { method: "POST", body: new URLSearchParams({ action: "cancel" }), redirect: "manual" });
    expect(cancelled.status).toBe(303);
    expect((await acct.as("GET", "/api/account")).body.account.status).toBe("SUSPENDED");
    expect((await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).body.error.code).toBe("ACCOUNT_SUSPENDED");
    // Reads and billing keep working while suspended.
    expect((await acct.as("GET", "/api/usage")).status).toBe(200);
    expect((await acct.as("POST", "/api/billing/portal")).status).toBe(200);

    await fetch(action, { method: "POST", body: new URLSearchParams({ action: "resume" }), redirect: "manual" });
    expect((await acct.as("GET", "/api/account")).body.account.status).toBe("ACTIVE");
    expect((await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).status).toBe(201);
  });

  it("security: a forged portal link does nothing; the Stripe webhook does not exist in local mode", async () => {
    const acct = await newActiveAccount();
    const portal = await acct.as("POST", "/api/billing/portal");
    const forged = portal.body.url.replace(/[^/]+$/, acct.token);
    const res = await fetch(`${forged}/action`, { method: "POST", body: new URLSearchParams({ action: "cancel" }), redirect: "manual" });
    expect(res.status).toBe(403);
    expect((await acct.as("GET", "/api/account")).body.account.status).toBe("ACTIVE");
    const hook = await call("POST", "/api/webhooks/stripe", { rawBody: "{}", headers: { "stripe-signature": "t=1,v1=abc" } });
    expect(hook.status).toBe(404);
    expect((await call("POST", "/api/billing/portal")).status).toBe(401);
  });
});
