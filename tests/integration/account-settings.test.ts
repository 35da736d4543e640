import { describe, expect, it } from "vitest";
import {
  baseUrlOf,
  call,
  newAccount,
  newActiveAccount,
  numberBody,
  randomIp,
  sql,
  uniqueEmail,
  seed,
  type TestAccount,
} from "../support/api";
import { tokenIn, waitForMail } from "../support/mailbox";
import { sessionCookie, trpc } from "../support/trpc";

/**
 * Settings over the dashboard's transport (a session cookie): password and
 * address changes, and closing the account. "Other sessions" are login tokens
 * and other cookies of the same account.
 */
const session = (acct: { email: string; password: string }) => sessionCookie(acct.email, acct.password);
async function login(email: string, password: string, accountId?: string): Promise<string> {
  const res = await call("POST", "/api/auth/login", { body: { email, password, accountId } });
  expect(res.status, res.text).toBe(200);
  return res.body.token;
}

/** The person who registered the account (docs/decisions.md §18: its first owner). */
async function userIdOf(acct: TestAccount): Promise<string> {
  const res = await sql().query(
    `SELECT "userId" FROM "Membership" WHERE "accountId" = $1 AND role = 'owner' ORDER BY "createdAt" LIMIT 1`,
    [acct.id],
  );
  return res.rows[0].userId;
}

/** Makes the person who registered `member` a member of `account` too, as an accepted invitation would. */
async function addMember(account: TestAccount, member: TestAccount, role: "owner" | "admin" | "developer" | "viewer") {
  await sql().query(`INSERT INTO "Membership" ("accountId", "userId", role) VALUES ($1, $2, $3)`, [
    account.id,
    await userIdOf(member),
    role,
  ]);
}

/** A dashboard session of `person` in `account`: log-in lands in the account they used last. */
async function sessionIn(account: TestAccount, person: TestAccount): Promise<string> {
  await sql().query(`UPDATE "User" SET "lastAccountId" = $1 WHERE id = $2`, [account.id, await userIdOf(person)]);
  return session(person);
}

describe("change password", () => {
  it("refuses a wrong current password, naming the field, and changes nothing", async () => {
    const acct = await newAccount();
    const res = await trpc(
      "mutation",
      "settings.changePassword",
      { currentPassword: "not it at all", newPassword: "a brand new password" },
      { cookie: await session(acct) },
    );
    expect(res.status).toBe(400);
    expect(res.error).toMatchObject({
      code: "VALIDATION_FAILED",
      details: [{ path: "currentPassword", message: "is not your current password" }],
    });
    expect((await call("GET", "/api/account", { token: acct.token })).status).toBe(200);
    await login(acct.email, acct.password);
  });

  it("with the right one, ends every other session and login token; the new password logs in", async () => {
    const acct = await newAccount();
    const other = await login(acct.email, acct.password);
    const otherBrowser = await session(acct);
    const res = await trpc(
      "mutation",
      "settings.changePassword",
      { currentPassword: acct.password, newPassword: "a brand new password" },
      { cookie: await session(acct) },
    );
    expect(res.data).toEqual({ changed: true });
    for (const token of [acct.token, other]) expect((await call("GET", "/api/account", { token })).status).toBe(401);
    expect((await trpc("query", "account.get", undefined, { cookie: otherBrowser })).status).toBe(401);
    expect(
      (await call("POST", "/api/auth/login", { body: { email: acct.email, password: acct.password } })).status,
    ).toBe(401);
    const fresh = await login(acct.email, "a brand new password");
    expect((await call("GET", "/api/account", { token: fresh })).status).toBe(200);
  });
});

describe("change email", () => {
  const CHANGE = /Confirm your new email address/;

  it("changes the address only when the link mailed to the new one is opened; sessions end; the old address is told", async () => {
    const acct = await newAccount();
    const newEmail = uniqueEmail("moved");
    const wrong = await trpc(
      "mutation",
      "settings.requestEmailChange",
      { newEmail, currentPassword: "nope nope" },
      { cookie: await session(acct) },
    );
    expect(wrong.status).toBe(400);

    const req = await trpc(
      "mutation",
      "settings.requestEmailChange",
      { newEmail: newEmail.toUpperCase(), currentPassword: acct.password },
      { cookie: await session(acct) },
    );
    expect(req.data).toEqual({ pendingEmail: newEmail });
    expect((await trpc("query", "settings.get", undefined, { cookie: await session(acct) })).data).toMatchObject({
      email: acct.email,
      pendingEmail: newEmail,
    });
    const [mail] = await waitForMail(newEmail, CHANGE);
    expect(mail!.text).toMatch(/If you did not ask for this/);
    await waitForMail(acct.email, /about to change/);
    // Not yet: the old address still logs in.
    await login(acct.email, acct.password);

    const done = await trpc("mutation", "settings.confirmEmailChange", {
      token: tokenIn(mail!, "/verify-email/new-address"),
    });
    expect(done.data).toEqual({ email: newEmail });
    expect((await call("GET", "/api/account", { token: acct.token })).status).toBe(401);
    expect(
      (await call("POST", "/api/auth/login", { body: { email: acct.email, password: acct.password } })).status,
    ).toBe(401);
    expect(
      (await trpc("query", "settings.get", undefined, { cookie: await sessionCookie(newEmail, acct.password) })).data,
    ).toMatchObject({ email: newEmail, emailVerified: true, pendingEmail: null });
    // Used once.
    expect(
      (await trpc("mutation", "settings.confirmEmailChange", { token: tokenIn(mail!, "/verify-email/new-address") }))
        .status,
    ).toBe(400);
  });

  it("refuses an address another account has", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    const res = await trpc(
      "mutation",
      "settings.requestEmailChange",
      { newEmail: b.email, currentPassword: a.password },
      { cookie: await session(a) },
    );
    expect(res.status).toBe(409);
    expect(res.error?.code).toBe("EMAIL_TAKEN");
  });

  it("a password change retires a pending change of address", async () => {
    const acct = await newAccount();
    const newEmail = uniqueEmail("pending");
    await trpc(
      "mutation",
      "settings.requestEmailChange",
      { newEmail, currentPassword: acct.password },
      { cookie: await session(acct) },
    );
    const [mail] = await waitForMail(newEmail, CHANGE);
    await trpc(
      "mutation",
      "settings.changePassword",
      { currentPassword: acct.password, newPassword: "a brand new password" },
      { cookie: await session(acct) },
    );
    expect(
      (await trpc("mutation", "settings.confirmEmailChange", { token: tokenIn(mail!, "/verify-email/new-address") }))
        .status,
    ).toBe(400);
  });
});

describe("close the account", () => {
  it("needs the address typed and the password", async () => {
    const acct = await newAccount();
    const noEmail = await trpc(
      "mutation",
      "settings.delete",
      { confirmEmail: "someone@else.com", password: acct.password },
      { cookie: await session(acct) },
    );
    expect(noEmail.error?.details?.[0]?.path).toBe("confirmEmail");
    const noPassword = await trpc(
      "mutation",
      "settings.delete",
      { confirmEmail: acct.email, password: "wrong one" },
      { cookie: await session(acct) },
    );
    expect(noPassword.error?.details?.[0]?.path).toBe("password");
    expect((await acct.as("GET", "/api/account")).status).toBe(200);
  });

  it("releases numbers, refuses keys and sessions, keeps the history, and frees the address", async () => {
    const acct = await newActiveAccount();
    const number = await acct.as("POST", "/api/phone-numbers", { body: numberBody() });
    expect(number.status).toBe(201);
    const phone = number.body.phoneNumber.phoneNumber as string;
    // A call in the history, as the engine would have recorded it.
    await seed().usageRecord({ accountId: acct.id, phoneNumberId: number.body.phoneNumber.id, calledNumber: phone });
    const usageBefore = await sql().query(`SELECT count(*)::int AS n FROM "UsageRecord" WHERE "accountId" = $1`, [
      acct.id,
    ]);

    const res = await trpc(
      "mutation",
      "settings.delete",
      { confirmEmail: acct.email, password: acct.password },
      { cookie: await session(acct) },
    );
    expect(res.data).toEqual({ deleted: true });

    expect((await acct.as("GET", "/api/account")).status).toBe(401);
    expect((await call("GET", "/api/account", { token: acct.token })).status).toBe(401);
    expect(
      (await call("POST", "/api/auth/login", { body: { email: acct.email, password: acct.password } })).status,
    ).toBe(401);

    const row = await sql().query(`SELECT email, "deletedEmail", "deletedAt", status FROM "Account" WHERE id = $1`, [
      acct.id,
    ]);
    expect(row.rows[0]).toMatchObject({ deletedEmail: acct.email, status: "SUSPENDED" });
    expect(row.rows[0].deletedAt).not.toBeNull();
    const usageAfter = await sql().query(`SELECT count(*)::int AS n FROM "UsageRecord" WHERE "accountId" = $1`, [
      acct.id,
    ]);
    expect(usageBefore.rows[0].n).toBe(1);
    expect(usageAfter.rows[0].n).toBe(1);
    // Its keys are revoked at rest too, not just refused.
    const keys = await sql().query(
      `SELECT count(*)::int AS n FROM "ApiKey" WHERE "accountId" = $1 AND "revokedAt" IS NULL`,
      [acct.id],
    );
    expect(keys.rows[0].n).toBe(0);

    // The number and the address are free again.
    const again = await newActiveAccount();
    expect((await again.as("POST", "/api/phone-numbers", { body: numberBody({ phoneNumber: phone }) })).status).toBe(
      201,
    );
    const reused = await call("POST", "/api/auth/register", {
      body: { email: acct.email, password: "a new owner's password" },
    });
    expect(reused.status).toBe(201);
  });

  it("records account.closed in the audit log, with the member who closed it and their address", async () => {
    const acct = await newAccount();
    const userId = await userIdOf(acct);
    const ip = randomIp();
    const res = await trpc(
      "mutation",
      "settings.delete",
      { confirmEmail: acct.email, password: acct.password },
      { cookie: await session(acct), ip },
    );
    expect(res.data).toEqual({ deleted: true });
    const audit = await sql().query(
      `SELECT "actorType", "actorUserId", "actorEmail", "targetType", "targetId", ip FROM "AuditLogEntry"
        WHERE "accountId" = $1 AND action = 'account.closed'`,
      [acct.id],
    );
    expect(audit.rows).toEqual([
      {
        actorType: "member",
        actorUserId: userId,
        actorEmail: acct.email,
        targetType: "account",
        targetId: acct.id,
        ip,
      },
    ]);
  });

  it("a refused closing records nothing and changes nothing", async () => {
    const acct = await newAccount();
    const res = await trpc(
      "mutation",
      "settings.delete",
      { confirmEmail: acct.email, password: "not the password" },
      { cookie: await session(acct) },
    );
    expect(res.status).toBe(400);
    const audit = await sql().query(`SELECT count(*)::int AS n FROM "AuditLogEntry" WHERE "accountId" = $1`, [acct.id]);
    expect(audit.rows[0].n).toBe(0);
    const members = await sql().query(`SELECT count(*)::int AS n FROM "Membership" WHERE "accountId" = $1`, [acct.id]);
    expect(members.rows[0].n).toBe(1);
  });
});

describe("a person in several accounts (docs/decisions.md §18: credentials are the user's)", () => {
  it("a password change ends the person's sessions in every account, and no one else's", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    await addMember(a, b, "developer");
    const inA = await login(b.email, b.password, a.id);
    const inB = await login(b.email, b.password, b.id);
    expect((await call("GET", "/api/account", { token: inA })).body.account.id).toBe(a.id);
    const res = await trpc(
      "mutation",
      "settings.changePassword",
      { currentPassword: b.password, newPassword: "a brand new password" },
      { cookie: await sessionIn(b, b) },
    );
    expect(res.data).toEqual({ changed: true });
    for (const token of [inA, inB, b.token]) expect((await call("GET", "/api/account", { token })).status).toBe(401);
    // The owner of the account the person belonged to keeps their own sessions.
    expect((await call("GET", "/api/account", { token: a.token })).status).toBe(200);
    expect(
      (await call("GET", "/api/account", { token: await login(b.email, "a brand new password", a.id) })).status,
    ).toBe(200);
  });

  it("the current password asked for is the signed-in person's, not the account owner's", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    await addMember(a, b, "admin");
    const cookie = await sessionIn(a, b);
    const withOwners = await trpc(
      "mutation",
      "settings.changePassword",
      { currentPassword: a.password, newPassword: "a brand new password" },
      { cookie },
    );
    expect(withOwners.status).toBe(400);
    expect(withOwners.error?.details?.[0]?.path).toBe("currentPassword");
    // Nothing changed for the owner either.
    await login(a.email, a.password);
  });

  it("settings show the signed-in person's address and verification, whatever the account's contact address", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    await addMember(a, b, "viewer");
    const [mail] = await waitForMail(b.email, /Confirm your email address/);
    const cookie = await sessionIn(a, b);
    expect((await trpc("query", "settings.get", undefined, { cookie })).data).toMatchObject({
      email: b.email,
      emailVerified: false,
    });
    expect((await trpc("mutation", "settings.verifyEmail", { token: tokenIn(mail!, "/verify-email") })).status).toBe(
      200,
    );
    // Verified once, for the person: in every account.
    expect((await trpc("query", "settings.get", undefined, { cookie })).data).toMatchObject({
      email: b.email,
      emailVerified: true,
    });
    expect((await trpc("query", "settings.get", undefined, { cookie: await session(a) })).data).toMatchObject({
      email: a.email,
      emailVerified: false,
    });
  });

  it("a new address moves the person and the contact address of an account they own; an account where they are not an owner keeps its own", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    // b's person is an admin of a: a's contact address stays a's owner's when b's person moves.
    await addMember(a, b, "admin");
    const newEmail = uniqueEmail("moved");
    const req = await trpc(
      "mutation",
      "settings.requestEmailChange",
      { newEmail, currentPassword: b.password },
      { cookie: await sessionIn(a, b) },
    );
    expect(req.data).toEqual({ pendingEmail: newEmail });
    const [mail] = await waitForMail(newEmail, /Confirm your new email address/);
    const done = await trpc("mutation", "settings.confirmEmailChange", {
      token: tokenIn(mail!, "/verify-email/new-address"),
    });
    expect(done.data).toEqual({ email: newEmail });
    expect((await b.as("GET", "/api/account")).body.account.email).toBe(newEmail);
    expect((await a.as("GET", "/api/account")).body.account.email).toBe(a.email);
    // Every session of the person ended, in both accounts; the new address signs in to either.
    expect((await call("GET", "/api/account", { token: b.token })).status).toBe(401);
    expect((await call("GET", "/api/account", { token: await login(newEmail, b.password, a.id) })).status).toBe(200);
    expect((await call("POST", "/api/auth/login", { body: { email: b.email, password: b.password } })).status).toBe(
      401,
    );
  });

  it("an owner who is not the account's contact moves alone: the contact address stays", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    await addMember(a, b, "owner");
    const newEmail = uniqueEmail("moved");
    await trpc(
      "mutation",
      "settings.requestEmailChange",
      { newEmail, currentPassword: b.password },
      { cookie: await sessionIn(a, b) },
    );
    const [mail] = await waitForMail(newEmail, /Confirm your new email address/);
    expect(
      (await trpc("mutation", "settings.confirmEmailChange", { token: tokenIn(mail!, "/verify-email/new-address") }))
        .status,
    ).toBe(200);
    expect((await a.as("GET", "/api/account")).body.account.email).toBe(a.email);
    expect((await b.as("GET", "/api/account")).body.account.email).toBe(newEmail);
  });

  it("refuses an address another person signs in with, even one that is no account's contact address", async () => {
    const acct = await newAccount();
    const taken = uniqueEmail("person");
    await sql().query(`INSERT INTO "User" (email, "passwordHash") VALUES ($1, '!none')`, [taken]);
    const res = await trpc(
      "mutation",
      "settings.requestEmailChange",
      { newEmail: taken, currentPassword: acct.password },
      { cookie: await session(acct) },
    );
    expect(res.status).toBe(409);
    expect(res.error?.code).toBe("EMAIL_TAKEN");
  });

  it("only an owner closes the account: an admin gets 403 and nothing changes", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    await addMember(a, b, "admin");
    const res = await trpc(
      "mutation",
      "settings.delete",
      { confirmEmail: a.email, password: b.password },
      { cookie: await sessionIn(a, b) },
    );
    expect(res.status).toBe(403);
    expect(res.error?.code).toBe("FORBIDDEN");
    expect((await a.as("GET", "/api/account")).status).toBe(200);
  });

  it("closing by a second owner: confirmed by the account's address and their own password; members who belong nowhere else go, the others stay", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    await addMember(a, b, "owner");
    const [ownerA, ownerB] = [await userIdOf(a), await userIdOf(b)];
    await sql().query(
      `INSERT INTO "Invitation" ("accountId", email, role, "tokenHash", "expiresAt")
        VALUES ($1, $2, 'viewer', md5(random()::text), now() + interval '7 days')`,
      [a.id, uniqueEmail("invited")],
    );
    const bInA = await login(b.email, b.password, a.id);
    const cookie = await sessionIn(a, b);

    // Their own address is not the account's, nor is the first owner's password theirs.
    const ownEmail = await trpc(
      "mutation",
      "settings.delete",
      { confirmEmail: b.email, password: b.password },
      { cookie },
    );
    expect(ownEmail.error?.details?.[0]?.path).toBe("confirmEmail");
    const ownersPassword = await trpc(
      "mutation",
      "settings.delete",
      { confirmEmail: a.email, password: a.password },
      { cookie },
    );
    expect(ownersPassword.error?.details?.[0]?.path).toBe("password");

    const ip = randomIp();
    const res = await trpc(
      "mutation",
      "settings.delete",
      { confirmEmail: a.email, password: b.password },
      { cookie, ip },
    );
    expect(res.data).toEqual({ deleted: true });

    const count = async (table: string) =>
      (await sql().query(`SELECT count(*)::int AS n FROM "${table}" WHERE "accountId" = $1`, [a.id])).rows[0].n;
    expect(await count("Membership")).toBe(0);
    expect(await count("Invitation")).toBe(0);

    // The first owner belonged to no other account: gone, their sessions dead, their address free again.
    const gone = (await sql().query(`SELECT email, "passwordHash" FROM "User" WHERE id = $1`, [ownerA])).rows[0];
    expect(gone.email).toBe(`deleted-${ownerA}@deleted.invalid`);
    expect(gone.passwordHash).not.toMatch(/^\$argon2/);
    expect((await call("GET", "/api/account", { token: a.token })).status).toBe(401);
    expect((await call("POST", "/api/auth/login", { body: { email: a.email, password: a.password } })).status).toBe(
      401,
    );
    expect((await call("POST", "/api/auth/login", { body: { email: gone.email, password: a.password } })).status).toBe(
      401,
    );
    expect(
      (await call("POST", "/api/auth/register", { body: { email: a.email, password: "a new owner's password" } }))
        .status,
    ).toBe(201);

    // The second owner keeps their sign-in and their own account, not the closed one.
    expect((await call("GET", "/api/account", { token: bInA })).status).toBe(401);
    const back = await login(b.email, b.password);
    expect((await call("GET", "/api/account", { token: back })).body.account.id).toBe(b.id);
    const stays = (await sql().query(`SELECT email FROM "User" WHERE id = $1`, [ownerB])).rows[0];
    expect(stays.email).toBe(b.email);

    const audit = await sql().query(
      `SELECT "actorUserId", "actorEmail", ip FROM "AuditLogEntry" WHERE "accountId" = $1 AND action = 'account.closed'`,
      [a.id],
    );
    expect(audit.rows).toEqual([{ actorUserId: ownerB, actorEmail: b.email, ip }]);
  });
});

describe("password checks inside a session share log-in's limits (docs/decisions.md §20)", () => {
  /** One tRPC mutation from one address, with the answer's headers. */
  async function fromAddress(ip: string, cookie: string, path: string, input: unknown) {
    const res = await fetch(`${baseUrlOf()}/api/trpc/${path}`, {
      method: "POST",
      headers: { cookie, "x-forwarded-for": ip, "content-type": "application/json" },
      body: JSON.stringify(input),
    });
    const body = await res.json();
    return {
      status: res.status,
      retryAfter: res.headers.get("retry-after"),
      code: body.error?.data?.appError?.code as string | undefined,
    };
  }

  it("40 wrong current passwords from one session: 400 for the first ten, then 429 RATE_LIMITED with Retry-After, on every check", async () => {
    const acct = await newAccount();
    const cookie = await session(acct);
    const ip = randomIp();
    const answers = [];
    for (let i = 0; i < 40; i++)
      answers.push(
        await fromAddress(ip, cookie, "settings.changePassword", {
          currentPassword: `guess number ${i}`,
          newPassword: "a brand new password",
        }),
      );
    expect(answers.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(400));
    expect(
      answers.slice(10).every((a) => a.status === 429 && a.code === "RATE_LIMITED" && Number(a.retryAfter) > 0),
      JSON.stringify(answers.slice(10, 12)),
    ).toBe(true);
    // Even the right password waits now, on all three checks: the guesser cannot tell a hit from a miss.
    expect(
      (
        await fromAddress(ip, cookie, "settings.changePassword", {
          currentPassword: acct.password,
          newPassword: "a brand new password",
        })
      ).status,
    ).toBe(429);
    expect(
      (
        await fromAddress(ip, cookie, "settings.requestEmailChange", {
          newEmail: uniqueEmail("x"),
          currentPassword: acct.password,
        })
      ).status,
    ).toBe(429);
    expect(
      (await fromAddress(ip, cookie, "settings.delete", { confirmEmail: acct.email, password: acct.password })).status,
    ).toBe(429);
    // The same budget as log-in for this account and address; the owner elsewhere is not locked out.
    expect(
      (await call("POST", "/api/auth/login", { ip, body: { email: acct.email, password: acct.password } })).status,
    ).toBe(429);
    expect(
      (await call("POST", "/api/auth/login", { body: { email: acct.email, password: acct.password } })).status,
    ).toBe(200);
    expect((await acct.as("GET", "/api/account")).status).toBe(200);
  });

  it("log-in guesses and session guesses cannot be alternated to double the rate", async () => {
    const acct = await newAccount();
    const cookie = await session(acct);
    const ip = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push(
        (await call("POST", "/api/auth/login", { ip, body: { email: acct.email, password: `login guess ${i}` } }))
          .status,
      );
      statuses.push(
        (
          await fromAddress(ip, cookie, "settings.requestEmailChange", {
            newEmail: uniqueEmail("x"),
            currentPassword: `session guess ${i}`,
          })
        ).status,
      );
    }
    expect(
      statuses.slice(0, 10).every((s) => s === 401 || s === 400),
      statuses.join(),
    ).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
  });
});
