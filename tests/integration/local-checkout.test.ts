import { describe, expect, it } from "vitest";
import { baseUrlOf, newAccount } from "../support/api";

const status = async (acct: Awaited<ReturnType<typeof newAccount>>) =>
  (await acct.as("GET", "/api/account")).body.account.status as string;
const post = (url: string, init: RequestInit = {}) => fetch(url, { method: "POST", redirect: "manual", ...init });

// docs/decisions.md §4, local billing mode: opening the link only shows; the Pay button (a POST) pays, once.
describe("local billing mode checkout", () => {
  it("HEAD and GET show the plan and a Pay button and change nothing (link previews cannot pay)", async () => {
    const acct = await newAccount();
    const head = await fetch(acct.checkoutUrl, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await head.text()).toBe("");
    for (let i = 0; i < 2; i++) {
      const page = await fetch(acct.checkoutUrl);
      expect(page.status).toBe(200);
      expect(page.headers.get("cache-control")).toBe("no-store");
      const html = await page.text();
      expect(html).toContain("$49.00 a month");
      expect(html).toMatch(/<form method="post"><button type="submit" data-testid="pay">/);
      expect(html).toContain('href="/dashboard"');
    }
    expect(await status(acct)).toBe("INACTIVE");
  });

  it("POST pays, then leads back to the dashboard; the used link is gone (404) for every method", async () => {
    const acct = await newAccount();
    const paid = await post(acct.checkoutUrl, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`${baseUrlOf()}/dashboard`);
    expect(await status(acct)).toBe("ACTIVE");
    expect((await post(acct.checkoutUrl)).status).toBe(404);
    const again = await fetch(acct.checkoutUrl);
    expect(again.status).toBe(404);
    const text = await again.text();
    expect(text).toContain("already been used");
    expect(text).toContain('href="/dashboard"');
    expect((await fetch(acct.checkoutUrl, { method: "HEAD" })).status).toBe(404);
  });

  it("any body pays: JSON, plain text or none", async () => {
    for (const init of [
      { headers: { "content-type": "application/json" }, body: "{}" },
      { headers: { "content-type": "text/plain" }, body: "pay" },
      {},
    ]) {
      const acct = await newAccount();
      expect((await post(acct.checkoutUrl, init)).status).toBe(303);
      expect(await status(acct)).toBe("ACTIVE");
    }
  });

  it("two POSTs of one link at once act once", async () => {
    const acct = await newAccount();
    const statuses = (await Promise.all([post(acct.checkoutUrl), post(acct.checkoutUrl), post(acct.checkoutUrl)]))
      .map((r) => r.status)
      .sort();
    expect(statuses).toEqual([303, 404, 404]);
  });

  it("a fresh link from POST /api/billing/checkout works on its own", async () => {
    const acct = await newAccount();
    await post(acct.checkoutUrl);
    const fresh = (await acct.as("POST", "/api/billing/checkout")).body.url as string;
    expect(fresh).not.toBe(acct.checkoutUrl);
    const page = await (await fetch(fresh)).text();
    expect(page).toContain("already active");
    expect(page).not.toContain('data-testid="pay"');
  });

  it("security: forged, tampered or wrong-purpose links are 404 for GET and POST and change nothing", async () => {
    const acct = await newAccount();
    const tampered = acct.checkoutUrl.slice(0, -2) + (acct.checkoutUrl.endsWith("AA") ? "BB" : "AA");
    const loginTokenAsLink = acct.checkoutUrl.replace(/[^/]+$/, acct.token);
    for (const url of [tampered, loginTokenAsLink, `${baseUrlOf()}/billing/checkout/nonsense`]) {
      const page = await fetch(url);
      expect(page.status).toBe(404);
      expect(await page.text()).toContain("invalid, has expired or has already been used");
      expect((await post(url)).status).toBe(404);
    }
    expect(await status(acct)).toBe("INACTIVE");
  });

  it("a body over 64 KiB is 413 and pays nothing", async () => {
    const acct = await newAccount();
    const res = await post(acct.checkoutUrl, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `x=${"a".repeat(70_000)}`,
    });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await status(acct)).toBe("INACTIVE");
  });
});
