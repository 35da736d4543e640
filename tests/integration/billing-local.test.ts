import { describe, expect, it } from "vitest";
import { baseUrlOf, call, newAccount, newActiveAccount, numberBody, type TestAccount } from "../support/api";

const status = async (acct: TestAccount) => (await acct.as("GET", "/api/account")).body.account.status as string;
const post = (url: string, body?: string) =>
  fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: body ?? "",
  });
const portalLink = async (acct: TestAccount) => (await acct.as("POST", "/api/billing/portal")).body.url as string;

// Local billing mode (no Stripe key): checkout and portal are pages of the service.
describe("local billing mode", () => {
  it("end to end: register → 402 on numbers → Pay on the checkout page → 201", async () => {
    const acct = await newAccount();
    const before = await acct.as("POST", "/api/phone-numbers", { body: numberBody() });
    expect(before.status).toBe(402);
    expect(before.body.error.code).toBe("PAYMENT_REQUIRED");
    expect((await post(acct.checkoutUrl)).status).toBe(303);
    expect((await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).status).toBe(201);
    const sub = await acct.as("GET", "/api/billing/subscription");
    expect(sub.body).toMatchObject({
      status: "ACTIVE",
      monthlyBase: 49,
      perMinuteRate: 0.02,
      totalCalls: 0,
      totalMinutes: 0,
      totalBilledMinutes: 0,
      hasPaymentMethod: true,
      subscriptionStatus: null,
    });
    expect(Date.parse(sub.body.currentPeriodEnd) - Date.parse(sub.body.currentPeriodStart)).toBeGreaterThanOrEqual(
      28 * 24 * 3600_000,
    );
  });

  it("the portal page shows the plan and changes nothing when opened (GET, HEAD)", async () => {
    const acct = await newActiveAccount();
    const url = await portalLink(acct);
    expect((await fetch(url, { method: "HEAD" })).status).toBe(200);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("$49.00 a month");
    expect(html).toContain(`href="${new URL(url).pathname}/cancel"`);
    expect(html).toContain('href="/dashboard"');
    expect(await status(acct)).toBe("ACTIVE");
  });

  it("cancel asks for confirmation first; only the confirmation's POST suspends, then back to the dashboard", async () => {
    const acct = await newActiveAccount();
    const url = await portalLink(acct);
    const confirm = await fetch(`${url}/cancel`);
    expect(confirm.status).toBe(200);
    const html = await confirm.text();
    expect(html).toContain("Cancel the subscription of");
    expect(html).toContain('data-testid="confirm-cancel"');
    expect(html).toContain('href="/dashboard"');
    expect((await fetch(`${url}/cancel`, { method: "HEAD" })).status).toBe(200);
    expect(await status(acct)).toBe("ACTIVE");

    const cancelled = await post(`${url}/cancel`);
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.get("location")).toBe(`${baseUrlOf()}/dashboard`);
    expect(await status(acct)).toBe("SUSPENDED");
    expect((await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).body.error.code).toBe(
      "ACCOUNT_SUSPENDED",
    );
    // Reads and billing keep working while suspended.
    expect((await acct.as("GET", "/api/usage")).status).toBe(200);
    // The link has acted: it is gone.
    expect((await fetch(url)).status).toBe(404);
    expect((await post(`${url}/resume`)).status).toBe(404);

    const next = await portalLink(acct);
    expect(await (await fetch(next)).text()).toContain('data-testid="resume"');
    const resumed = await post(`${next}/resume`);
    expect(resumed.status).toBe(303);
    expect(resumed.headers.get("location")).toBe(`${baseUrlOf()}/dashboard`);
    expect(await status(acct)).toBe("ACTIVE");
    expect((await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).status).toBe(201);
  });

  it("opening the resume address changes nothing; an action that does not apply leaves the link usable", async () => {
    const acct = await newActiveAccount();
    const url = await portalLink(acct);
    const opened = await fetch(`${url}/resume`, { redirect: "manual" });
    expect(opened.status).toBe(303);
    expect(await status(acct)).toBe("ACTIVE");
    // Resume while active: nothing to do, back to the dashboard, and the link still cancels.
    expect((await post(`${url}/resume`)).status).toBe(303);
    expect(await status(acct)).toBe("ACTIVE");
    expect((await post(`${url}/cancel`)).status).toBe(303);
    expect(await status(acct)).toBe("SUSPENDED");
  });

  it("security: forged portal links are 404 and do nothing; the Stripe webhook does not exist in local mode", async () => {
    const acct = await newActiveAccount();
    const url = await portalLink(acct);
    const forged = url.replace(/[^/]+$/, acct.token);
    const checkoutAsPortal = url.replace(/[^/]+$/, acct.checkoutUrl.split("/").pop()!);
    for (const link of [forged, checkoutAsPortal]) {
      expect((await fetch(link)).status).toBe(404);
      expect((await fetch(`${link}/cancel`)).status).toBe(404);
      expect((await post(`${link}/cancel`)).status).toBe(404);
    }
    expect(await status(acct)).toBe("ACTIVE");
    const hook = await call("POST", "/api/webhooks/stripe", {
      rawBody: "{}",
      headers: { "stripe-signature": "t=1,v1=abc" },
    });
    expect(hook.status).toBe(404);
    expect((await call("POST", "/api/billing/portal")).status).toBe(401);
  });

  it("the Stripe return page links back to the dashboard", async () => {
    const page = await (await fetch(`${baseUrlOf()}/billing/done?checkout=success`)).text();
    expect(page).toContain('href="/dashboard"');
  });
});
