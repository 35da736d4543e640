import { describe, expect, it } from "vitest";
import { newAccount, randomIp, uniqueEmail } from "../support/api";
import { tokenIn, waitForMail } from "../support/mailbox";
import { sessionCookie, trpc } from "../support/trpc";

/**
 * Issue #30's notices, through the durable mail job to the real SMTP test server (the strict server's
 * SMTP_URL): a password changed, an address changed (told to the OLD address), an account closed.
 */
describe("account notices", () => {
  it("changing the password mails a notice to the account's address", async () => {
    const acct = await newAccount();
    const cookie = await sessionCookie(acct.email, acct.password);
    const res = await trpc(
      "mutation",
      "settings.changePassword",
      { currentPassword: acct.password, newPassword: `new-${acct.password}-pw` },
      { cookie, ip: randomIp() },
    );
    expect(res.status, JSON.stringify(res.error)).toBe(200);
    const [mail] = await waitForMail(acct.email, /Your Routekit password was changed/, { timeoutMs: 30_000 });
    expect(mail!.text).toMatch(/If this was not you, reset your password now/);
  });

  it("a confirmed change of address is told to the old address, once", async () => {
    const acct = await newAccount();
    const cookie = await sessionCookie(acct.email, acct.password);
    const newEmail = uniqueEmail("moved");
    const asked = await trpc(
      "mutation",
      "settings.requestEmailChange",
      { newEmail, currentPassword: acct.password },
      { cookie, ip: randomIp() },
    );
    expect(asked.status, JSON.stringify(asked.error)).toBe(200);
    const [link] = await waitForMail(newEmail, /Confirm your new email address/, { timeoutMs: 30_000 });
    const confirmed = await trpc("mutation", "settings.confirmEmailChange", {
      token: tokenIn(link!, "/verify-email/new-address"),
    });
    expect(confirmed.status, JSON.stringify(confirmed.error)).toBe(200);
    const [notice] = await waitForMail(acct.email, /Your Routekit email address was changed/, { timeoutMs: 30_000 });
    expect(notice!.text).toContain(newEmail);
    // Nothing about the change went to the new address beyond its link.
    expect((await waitForMail(newEmail, /./)).map((m) => m.subject)).toEqual([
      "Confirm your new email address for Routekit",
    ]);
  });

  it("closing the account mails the address it had", async () => {
    const acct = await newAccount();
    const cookie = await sessionCookie(acct.email, acct.password);
    const res = await trpc(
      "mutation",
      "settings.delete",
      { confirmEmail: acct.email, password: acct.password },
      { cookie, ip: randomIp() },
    );
    expect(res.status, JSON.stringify(res.error)).toBe(200);
    const [mail] = await waitForMail(acct.email, /Your Routekit account was closed/, { timeoutMs: 30_000 });
    expect(mail!.text).toMatch(/Closed is for good/);
  });
});
