import { describe, expect, inject, it } from "vitest";
import { call, newAccount, randomIp, sql, uniqueEmail, seed, type TestAccount } from "../support/api";
import { ago } from "../support/seed";
import { mailTo, tokenIn, waitForMail } from "../support/mailbox";
import { sessionCookie, trpc } from "../support/trpc";

/**
 * Mail through a real SMTP server the test run starts (SMTP_URL of the strict
 * server): sign-up verification, resend, and password reset.
 */
const VERIFY = /Confirm your email address/;
const RESET = /Reset your Routekit password/;

/** The person who registered the account (docs/decisions.md §18: its first owner). */
const userIdOf = async (acct: TestAccount): Promise<string> =>
  (await sql().query(`SELECT "userId" FROM "Membership" WHERE "accountId" = $1 AND role = 'owner'`, [acct.id])).rows[0]
    .userId;

describe("email verification", () => {
  it("sign-up mails a verification link with a plain-text part; confirming it marks the address verified, once", async () => {
    const acct = await newAccount();
    const [mail] = await waitForMail(acct.email, VERIFY);
    expect(mail!.text).toMatch(/If you did not create a Routekit account/);
    expect(mail!.from).toMatch(/no-reply@/);
    const token = tokenIn(mail!, "/verify-email");
    const cookie = await sessionCookie(acct.email, acct.password);

    expect((await trpc("query", "settings.get", undefined, { cookie })).data).toMatchObject({
      email: acct.email,
      emailVerified: false,
    });
    // Only a hash is stored.
    const stored = await sql().query(`SELECT "tokenHash" FROM "AccountToken" WHERE "accountId" = $1`, [acct.id]);
    expect(stored.rows.map((r) => r.tokenHash)).not.toContain(token);

    const ok = await trpc("mutation", "settings.verifyEmail", { token });
    expect(ok.status).toBe(200);
    expect(ok.data).toEqual({ verified: true, email: acct.email });
    expect((await trpc("query", "settings.get", undefined, { cookie })).data.emailVerified).toBe(true);

    const again = await trpc("mutation", "settings.verifyEmail", { token });
    expect(again.status).toBe(400);
    expect(again.error?.code).toBe("VALIDATION_FAILED");
  });

  it("resend sends a new link that retires the old one, and is rate limited per address", async () => {
    const acct = await newAccount();
    const [first] = await waitForMail(acct.email, VERIFY);
    const ip = randomIp();
    const cookie = await sessionCookie(acct.email, acct.password);
    const resent = await trpc("mutation", "settings.resendVerification", {}, { cookie, ip });
    expect(resent.data).toEqual({ sent: true, alreadyVerified: false });
    const mails = await waitForMail(acct.email, VERIFY, { count: 2 });
    const newer = tokenIn(mails[1]!, "/verify-email");
    expect((await trpc("mutation", "settings.verifyEmail", { token: tokenIn(first!, "/verify-email") })).status).toBe(
      400,
    );
    expect((await trpc("mutation", "settings.verifyEmail", { token: newer })).status).toBe(200);
    // Verified now: nothing more to send.
    expect((await trpc("mutation", "settings.resendVerification", {}, { cookie, ip })).data).toEqual({
      sent: false,
      alreadyVerified: true,
    });

    const other = await newAccount();
    const otherCookie = await sessionCookie(other.email, other.password);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push(
        (await trpc("mutation", "settings.resendVerification", {}, { cookie: otherCookie, ip: randomIp() })).status,
      );
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses[5]).toBe(429);
  });

  it("without a session, resend is 401", async () => {
    expect((await trpc("mutation", "settings.resendVerification", {})).status).toBe(401);
  });
});

describe("password reset", () => {
  it("answers the same for a known and an unknown address; only the known one gets mail", async () => {
    const acct = await newAccount();
    const unknown = uniqueEmail("nobody");
    const known = await trpc("mutation", "settings.requestPasswordReset", { email: acct.email.toUpperCase() });
    const none = await trpc("mutation", "settings.requestPasswordReset", { email: unknown });
    expect(known.status).toBe(200);
    expect(none.status).toBe(known.status);
    expect(none.text).toBe(known.text);
    const [mail] = await waitForMail(acct.email, RESET);
    expect(mail!.text).toMatch(/1 hour/);
    expect(mail!.text).toMatch(/If you did not ask to reset your password/);
    await new Promise((r) => setTimeout(r, 300));
    expect(await mailTo(unknown)).toHaveLength(0);
  });

  /**
   * Issue #22 (13): a known address answered 4 ms slower (the link's writes).
   * A millisecond comparison on a shared 2-core machine is either flaky or so
   * loose it passes the old code too, so the main test pins the cause instead:
   * the answer must not wait for any work that only a known address does. The
   * test holds a lock on the account's pending reset link, which that work
   * needs; the old code answered only after the lock was released (3 s), the
   * new one answers at once and does the work afterwards.
   */
  // The embedded database (PGlite) runs one transaction at a time for every connection, so a held lock there
  // stalls every statement, the answer's own mail-limit ones included: the rule is shown on PostgreSQL.
  it.skipIf(inject("embedded"))(
    "answers without waiting for the known address's work: a lock on that work does not delay the answer",
    async () => {
      const acct = await newAccount();
      await trpc("mutation", "settings.requestPasswordReset", { email: acct.email }, { ip: randomIp() });
      await waitForMail(acct.email, RESET);
      const client = await sql().connect();
      try {
        await client.query("BEGIN");
        const locked = await client.query(
          `SELECT id FROM "AccountToken" WHERE "accountId" = $1 AND purpose = 'RESET_PASSWORD' AND "usedAt" IS NULL FOR UPDATE`,
          [acct.id],
        );
        expect(locked.rowCount).toBe(1);
        const release = new Promise((r) => setTimeout(r, 3000)).then(() => client.query("COMMIT"));
        const answer = await trpc(
          "mutation",
          "settings.requestPasswordReset",
          { email: acct.email },
          { ip: randomIp() },
        );
        expect(answer.status).toBe(200);
        expect(answer.ms, "the answer waited for the account's link to be written").toBeLessThan(1500);
        await release;
      } finally {
        client.release();
      }
      // The work still happens, after the answer: a second link arrives.
      await waitForMail(acct.email, RESET, { count: 2 });
    },
  );

  it("takes similar time for a known and an unknown address (interleaved, medians within a generous margin)", async () => {
    const acct = await newAccount();
    const nobody = uniqueEmail("nobody");
    const known: number[] = [];
    const unknown: number[] = [];
    // Interleaved, so a burst of load on the shared machine hits both series alike; 5 of each stays within the per-address mail limit.
    for (let i = 0; i < 5; i++) {
      known.push(
        (await trpc("mutation", "settings.requestPasswordReset", { email: acct.email }, { ip: randomIp() })).ms,
      );
      unknown.push((await trpc("mutation", "settings.requestPasswordReset", { email: nobody }, { ip: randomIp() })).ms);
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[2]!;
    expect(Math.abs(median(known) - median(unknown))).toBeLessThan(200);
  });

  it("a link sets a new password once: old sessions and the old password stop working", async () => {
    const acct = await newAccount();
    await trpc("mutation", "settings.requestPasswordReset", { email: acct.email });
    const token = tokenIn((await waitForMail(acct.email, RESET))[0]!, "/reset-password");

    const short = await trpc("mutation", "settings.resetPassword", { token, password: "short" });
    expect(short.status).toBe(400);
    expect(short.error?.details?.[0]?.path).toBe("password");

    const ok = await trpc("mutation", "settings.resetPassword", { token, password: "a brand new password" });
    expect(ok.data).toEqual({ reset: true });
    // The login token issued at registration ended with the reset; the API key did not.
    expect((await call("GET", "/api/account", { token: acct.token })).status).toBe(401);
    expect((await acct.as("GET", "/api/account")).status).toBe(200);
    expect(
      (await call("POST", "/api/auth/login", { body: { email: acct.email, password: acct.password } })).status,
    ).toBe(401);
    expect(
      (await call("POST", "/api/auth/login", { body: { email: acct.email, password: "a brand new password" } })).status,
    ).toBe(200);

    const reused = await trpc("mutation", "settings.resetPassword", { token, password: "another new password" });
    expect(reused.status).toBe(400);
    expect(reused.error?.message).toMatch(/invalid, already used or expired/);
  });

  it("an expired link is refused", async () => {
    const acct = await newAccount();
    await trpc("mutation", "settings.requestPasswordReset", { email: acct.email });
    const token = tokenIn((await waitForMail(acct.email, RESET))[0]!, "/reset-password");
    await seed().update(
      "AccountToken",
      { accountId: acct.id, purpose: "RESET_PASSWORD" },
      { expiresAt: ago("1 second") },
    );
    const res = await trpc("mutation", "settings.resetPassword", { token, password: "a brand new password" });
    expect(res.status).toBe(400);
    expect(
      (await call("POST", "/api/auth/login", { body: { email: acct.email, password: acct.password } })).status,
    ).toBe(200);
  });

  it("the link is the person's: it names the account they used last, and ends their sessions in every account", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    const person = await userIdOf(b);
    await sql().query(`INSERT INTO "Membership" ("accountId", "userId", role) VALUES ($1, $2, 'viewer')`, [
      a.id,
      person,
    ]);
    const inA = (
      await call("POST", "/api/auth/login", { body: { email: b.email, password: b.password, accountId: a.id } })
    ).body.token as string;
    await trpc("mutation", "settings.requestPasswordReset", { email: b.email });
    const token = tokenIn((await waitForMail(b.email, RESET))[0]!, "/reset-password");
    const link = await sql().query(
      `SELECT "userId", "accountId" FROM "AccountToken" WHERE "userId" = $1 AND purpose = 'RESET_PASSWORD'`,
      [person],
    );
    expect(link.rows).toEqual([{ userId: person, accountId: a.id }]);

    expect(
      (await trpc("mutation", "settings.resetPassword", { token, password: "a brand new password" })).data,
    ).toEqual({ reset: true });
    for (const t of [inA, b.token]) expect((await call("GET", "/api/account", { token: t })).status).toBe(401);
    // Another person of the account keeps their password and sessions.
    expect((await call("GET", "/api/account", { token: a.token })).status).toBe(200);
    const fresh = await call("POST", "/api/auth/login", { body: { email: b.email, password: "a brand new password" } });
    expect(fresh.body.accountId).toBe(a.id);
  });

  it("a person who belongs to no open account gets no link, and the same answer", async () => {
    const [acct, witness] = [await newAccount(), await newAccount()];
    const person = await userIdOf(acct);
    await sql().query(`DELETE FROM "Membership" WHERE "accountId" = $1`, [acct.id]);
    const res = await trpc("mutation", "settings.requestPasswordReset", { email: acct.email });
    expect(res.data).toEqual({ requested: true });
    // A request after it, which does more work (a link, a mail), has arrived: the first one's work is over.
    await trpc("mutation", "settings.requestPasswordReset", { email: witness.email });
    await waitForMail(witness.email, RESET);
    const links = await sql().query(
      `SELECT count(*)::int AS n FROM "AccountToken" WHERE "userId" = $1 AND purpose = 'RESET_PASSWORD'`,
      [person],
    );
    expect(links.rows[0].n).toBe(0);
    expect((await mailTo(acct.email)).filter((m) => RESET.test(m.subject))).toHaveLength(0);
  });

  it("a made-up token is refused, and requests are rate limited per address", async () => {
    expect(
      (await trpc("mutation", "settings.resetPassword", { token: "x".repeat(43), password: "a brand new password" }))
        .status,
    ).toBe(400);
    const email = uniqueEmail("flood");
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await trpc("mutation", "settings.requestPasswordReset", { email }, { ip: randomIp() })).status);
    expect(statuses.slice(0, 5).every((s) => s === 200)).toBe(true);
    expect(statuses[5]).toBe(429);
  });
});
