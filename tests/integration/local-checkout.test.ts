import { describe, expect, it } from "vitest";
import { newAccount } from "./support/api";

describe("local billing mode checkout", () => {
  it("opening the checkout URL makes the account ACTIVE, once", async () => {
    const acct = await newAccount();
    const page = await fetch(acct.checkoutUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Payment complete");
    expect((await acct.as("GET", "/api/account")).body.account.status).toBe("ACTIVE");
    const again = await fetch(acct.checkoutUrl);
    expect(await again.text()).toContain("already active");
  });

  it("a forged or tampered link changes nothing", async () => {
    const acct = await newAccount();
    const tampered = acct.checkoutUrl.slice(0, -2) + (acct.checkoutUrl.endsWith("AA") ? "BB" : "AA");
    const page = await fetch(tampered);
    expect(await page.text()).toContain("invalid or has expired");
    const loginTokenAsLink = acct.checkoutUrl.replace(/[^/]+$/, acct.token);
    expect(await (await fetch(loginTokenAsLink)).text()).toContain("invalid or has expired");
    expect((await acct.as("GET", "/api/account")).body.account.status).toBe("INACTIVE");
  });
});
