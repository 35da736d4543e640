import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { baseUrlOf, call, newAccount, sql, type TestAccount, seed } from "../support/api";
import { tokenIn, waitForMail } from "../support/mailbox";
import { TEST_AUTH_SECRET } from "../support/test-secrets";
import { sessionCookie, trpc } from "../support/trpc";

/**
 * docs/decisions.md §20: a closed account is closed for good. Its alias and password
 * never log in again (401, exactly as wrong credentials), its login tokens,
 * dashboard sessions and keys are dead, and no link issued before the
 * closing acts on it (404). Each test is the attack of issue #22, replayed.
 */
async function login(email: string, password: string): Promise<string> {
  const res = await call("POST", "/api/auth/login", { body: { email, password } });
  expect(res.status, res.text).toBe(200);
  return res.body.token;
}

async function close(acct: TestAccount): Promise<void> {
  const res = await trpc(
    "mutation",
    "settings.delete",
    { confirmEmail: acct.email, password: acct.password },
    { cookie: await sessionCookie(acct.email, acct.password) },
  );
  expect(res.data, res.text).toEqual({ deleted: true });
}

const aliasOf = (acct: TestAccount) => `deleted-${acct.id}@deleted.invalid`;
const accountRow = async (acct: TestAccount) =>
  (await sql().query(`SELECT status, "deletedAt", email, "deletedEmail" FROM "Account" WHERE id = $1`, [acct.id]))
    .rows[0];
/** The person who registered the account; asked before the closing, which removes every membership. */
const userIdOf = async (acct: TestAccount): Promise<string> =>
  (await sql().query(`SELECT "userId" FROM "Membership" WHERE "accountId" = $1 AND role = 'owner'`, [acct.id])).rows[0]
    .userId;
/** That person's credentials (docs/decisions.md §18: the user's, not the account's). */
const userRow = async (userId: string) =>
  (
    await sql().query(`SELECT email, "passwordHash", "sessionVersion", "emailVerifiedAt" FROM "User" WHERE id = $1`, [
      userId,
    ])
  ).rows[0];

/** A login JWT as the service signs them (the test servers share AUTH_SECRET), carrying the user's current session version. */
async function currentVersionToken(userId: string, accountId: string, sessionVersion: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sv: sessionVersion, acc: accountId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(userId)
    .setIssuer("routekit")
    .setAudience("routekit:login")
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(TEST_AUTH_SECRET));
}

describe("a closed account's credentials", () => {
  it("the alias and the old password answer 401 exactly as wrong credentials, and create nothing", async () => {
    const acct = await newAccount();
    const userId = await userIdOf(acct);
    await close(acct);
    const wrong = await call("POST", "/api/auth/login", {
      body: { email: `nobody-${randomUUID()}@example.com`, password: "whatever it is" },
    });
    // The account's alias, its address, and the alias its only person now has.
    for (const email of [aliasOf(acct), acct.email, `deleted-${userId}@deleted.invalid`]) {
      const res = await call("POST", "/api/auth/login", { body: { email, password: acct.password } });
      expect(res.status, email).toBe(401);
      expect(res.body, email).toEqual(wrong.body);
    }
    // Not through the dashboard's log-in form either: no session cookie, back to the form with the error.
    const form = await fetch(`${baseUrlOf()}/login/submit`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: baseUrlOf(), "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": acct.ip },
      body: new URLSearchParams({ email: aliasOf(acct), password: acct.password }),
    });
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toMatch(/^\/login\?error=/);
    expect(form.headers.getSetCookie().some((c) => c.startsWith("next-auth.session-token="))).toBe(false);
    // The hash itself is gone: nothing at rest verifies the old password.
    const person = await userRow(userId);
    expect(person.passwordHash).not.toMatch(/^\$argon2/);
    expect(person.email).toBe(`deleted-${userId}@deleted.invalid`);
  });

  it("tokens and sessions from before the closing are refused on REST, tRPC and the dashboard; a token of the current version too", async () => {
    const acct = await newAccount();
    const userId = await userIdOf(acct);
    const token = await login(acct.email, acct.password);
    const cookie = await sessionCookie(acct.email, acct.password);
    await close(acct);

    expect((await call("GET", "/api/account", { token })).status).toBe(401);
    expect((await call("POST", "/api/api-keys", { token, body: { label: "back door" } })).status).toBe(401);
    expect((await trpc("query", "account.get", undefined, { cookie })).status).toBe(401);
    expect((await trpc("mutation", "apiKeys.create", { label: "back door" }, { cookie })).status).toBe(401);
    const dashboard = await fetch(`${baseUrlOf()}/dashboard`, {
      headers: { cookie, "x-forwarded-for": acct.ip },
      redirect: "manual",
    });
    const html = dashboard.status === 200 ? await dashboard.text() : "";
    expect(html).not.toContain(acct.email);
    if (dashboard.status !== 200) expect(dashboard.headers.get("location") ?? "").toMatch(/\/login/);

    // Structural, not only the session version: a well-signed token of the version the user has now is refused.
    const { sessionVersion } = await userRow(userId);
    const forged = await currentVersionToken(userId, acct.id, sessionVersion);
    expect((await call("GET", "/api/account", { token: forged })).status).toBe(401);
    // A key that somehow escaped revocation is still dead: the look-up refuses a closed account's keys.
    const unrevoked = await seed().update("ApiKey", { accountId: acct.id }, { revokedAt: null });
    expect(unrevoked.length).toBeGreaterThan(0);
    expect((await acct.as("GET", "/api/account")).status).toBe(401);
    expect((await call("GET", "/api/account", { token: acct.apiKey })).status).toBe(401);
  });
});

describe("links issued before the closing (docs/decisions.md §20: 404, and nothing changes)", () => {
  const post = (url: string) =>
    fetch(url, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });

  it("the checkout link (7 days) and the portal's resume are 404 and leave the account SUSPENDED", async () => {
    const acct = await newAccount();
    const portal = (await acct.as("POST", "/api/billing/portal")).body.url as string;
    const freshCheckout = (await acct.as("POST", "/api/billing/checkout")).body.url as string;
    await close(acct);
    expect((await accountRow(acct)).status).toBe("SUSPENDED");

    for (const url of [acct.checkoutUrl, freshCheckout]) {
      expect((await fetch(url)).status, url).toBe(404);
      expect((await post(url)).status, url).toBe(404);
    }
    expect((await fetch(portal)).status).toBe(404);
    expect((await post(`${portal}/resume`)).status).toBe(404);
    expect((await post(`${portal}/cancel`)).status).toBe(404);
    expect((await accountRow(acct)).status).toBe("SUSPENDED");
    // And so the account is not back: still no way in.
    expect(
      (await call("POST", "/api/auth/login", { body: { email: aliasOf(acct), password: acct.password } })).status,
    ).toBe(401);
  });

  it("mailed links (verification, password reset, change of address) are 404 and change nothing", async () => {
    const acct = await newAccount();
    const userId = await userIdOf(acct);
    const [verify] = await waitForMail(acct.email, /Confirm your email address/);
    expect(
      (await call("POST", "/api/auth/login", { body: { email: acct.email, password: acct.password } })).status,
    ).toBe(200);
    const reset = await trpc("mutation", "settings.requestPasswordReset", { email: acct.email });
    expect(reset.status).toBe(200);
    const [resetMail] = await waitForMail(acct.email, /Reset your Routekit password/);
    const newEmail = `moved-${randomUUID().slice(0, 8)}@example.com`;
    const change = await trpc(
      "mutation",
      "settings.requestEmailChange",
      { newEmail, currentPassword: acct.password },
      { cookie: await sessionCookie(acct.email, acct.password) },
    );
    expect(change.status, change.text).toBe(200);
    const [changeMail] = await waitForMail(newEmail, /Confirm your new email address/);
    await close(acct);
    const before = { account: await accountRow(acct), user: await userRow(userId) };

    const verified = await trpc("mutation", "settings.verifyEmail", { token: tokenIn(verify!, "/verify-email") });
    expect(verified.status, verified.text).toBe(404);
    expect(verified.error?.code).toBe("NOT_FOUND");
    const resetDone = await trpc("mutation", "settings.resetPassword", {
      token: tokenIn(resetMail!, "/reset-password"),
      password: "the attacker's new password",
    });
    expect(resetDone.status, resetDone.text).toBe(404);
    const moved = await trpc("mutation", "settings.confirmEmailChange", {
      token: tokenIn(changeMail!, "/verify-email/new-address"),
    });
    expect(moved.status, moved.text).toBe(404);

    expect({ account: await accountRow(acct), user: await userRow(userId) }).toEqual(before);
    for (const email of [aliasOf(acct), acct.email, newEmail]) {
      for (const password of [acct.password, "the attacker's new password"]) {
        expect(
          (await call("POST", "/api/auth/login", { body: { email, password } })).status,
          `${email} / ${password}`,
        ).toBe(401);
      }
    }
    // A reset asked for after the closing sends nothing for the alias either.
    expect((await trpc("mutation", "settings.requestPasswordReset", { email: aliasOf(acct) })).status).toBe(200);
  });
});
