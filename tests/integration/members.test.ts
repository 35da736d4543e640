import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { call, newAccount, randomIp, seed, sql, uniqueEmail, type TestAccount } from "../support/api";
import { ago } from "../support/seed";
import { waitForMail } from "../support/mailbox";

/**
 * docs/decisions.md §18, §22: members and invitations through the REST API, on the strict server (whose mail
 * goes to the test SMTP server). Every caller is a login token unless a test says otherwise: a member is a person.
 */
const INVITED = /You are invited to join/;

type Member = { id: string; userId: string; email: string; role: string };

function as(token: string) {
  const ip = randomIp();
  return <T = any>(method: string, path: string, body?: unknown) => call<T>(method, path, { token, ip, body });
}

/** The link of the newest invitation mailed to `email` (count: how many invitations it has had by now). */
async function invitationToken(email: string, count = 1): Promise<string> {
  const mails = await waitForMail(email, INVITED, { count });
  const match = /https?:\/\/\S+\/invitations\/([A-Za-z0-9_%-]+)/.exec(mails[count - 1]!.text);
  if (!match) throw new Error(`no invitation link in:\n${mails[count - 1]!.text}`);
  return decodeURIComponent(match[1]!);
}

async function members(owner: TestAccount): Promise<Member[]> {
  const res = await as(owner.token)("GET", "/api/members");
  expect(res.status).toBe(200);
  return res.body.members;
}

/** Invites a new address with `role` and accepts with a new sign-in: the member's login token and membership. */
async function join(owner: TestAccount, role: string, inviterToken = owner.token) {
  const email = uniqueEmail(role);
  const password = `pw-${randomBytes(8).toString("hex")}`;
  const invited = await as(inviterToken)("POST", "/api/members/invitations", { email, role });
  expect(invited.status, invited.text).toBe(201);
  const token = await invitationToken(email);
  const accepted = await call("POST", "/api/invitations/accept/sign-up", { body: { token, password } });
  expect(accepted.status, accepted.text).toBe(200);
  const member = (await members(owner)).find((m) => m.email === email)!;
  return { email, password, token: accepted.body.token as string, member };
}

describe("invitations", () => {
  it("an owner invites; the mailed link signs the new person up and into the account at the invited role, once", async () => {
    const owner = await newAccount({ companyName: "Acme Teams" });
    const email = uniqueEmail("new");
    const res = await as(owner.token)("POST", "/api/members/invitations", {
      email: email.toUpperCase(),
      role: "viewer",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      invitation: {
        id: expect.any(String),
        email,
        role: "viewer",
        expiresAt: expect.any(String),
        createdAt: expect.any(String),
      },
    });
    const days = (Date.parse(res.body.invitation.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
    const listed = await as(owner.token)("GET", "/api/members/invitations");
    expect(listed.body.invitations).toEqual([expect.objectContaining({ id: res.body.invitation.id, email })]);

    const [mail] = await waitForMail(email, INVITED);
    expect(mail!.subject).toContain("Acme Teams");
    expect(mail!.text).toMatch(/Viewer/);
    const token = await invitationToken(email);
    // Only the hash is stored: a database read is no link.
    const stored = await sql().query(`SELECT "tokenHash" FROM "Invitation" WHERE id = $1`, [res.body.invitation.id]);
    expect(stored.rows[0].tokenHash).not.toContain(token);

    const password = "a fine password";
    const accepted = await call("POST", "/api/invitations/accept/sign-up", { body: { token, password } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ accountId: owner.id, token: expect.any(String), expiresAt: expect.any(String) });

    // Signed in to the account as a viewer: reads, never manages.
    expect((await as(accepted.body.token)("GET", "/api/account")).status).toBe(200);
    expect((await as(accepted.body.token)("GET", "/api/members")).status).toBe(403);
    const all = await members(owner);
    expect(all.map((m) => [m.email, m.role])).toEqual([
      [owner.email, "owner"],
      [email, "viewer"],
    ]);
    // The new sign-in logs in like any other.
    const login = await call("POST", "/api/auth/login", { body: { email, password } });
    expect(login.status).toBe(200);
    expect(login.body.accountId).toBe(owner.id);

    // Used: a second click is refused, whichever way, and the invitation is no longer pending.
    const again = await call("POST", "/api/invitations/accept/sign-up", { body: { token, password } });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/already used/);
    expect((await call("POST", "/api/invitations/accept/sign-in", { body: { token, password } })).status).toBe(400);
    expect((await as(owner.token)("GET", "/api/members/invitations")).body.invitations).toEqual([]);
  });

  it("an existing user accepts with their password and then belongs to two accounts, chosen at log-in", async () => {
    const owner = await newAccount();
    const other = await newAccount();
    expect(
      (await as(owner.token)("POST", "/api/members/invitations", { email: other.email, role: "developer" })).status,
    ).toBe(201);
    const token = await invitationToken(other.email);
    // Signing up again with that address is refused: it has a sign-in.
    const signUp = await call("POST", "/api/invitations/accept/sign-up", { body: { token, password: "whatever123" } });
    expect(signUp.status).toBe(409);
    const wrong = await call("POST", "/api/invitations/accept/sign-in", { body: { token, password: "not it" } });
    expect(wrong.status).toBe(401);

    const accepted = await call("POST", "/api/invitations/accept/sign-in", {
      body: { token, password: other.password },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.accountId).toBe(owner.id);
    const joined = as(accepted.body.token);
    expect((await joined("GET", "/api/account")).body.account.id).toBe(owner.id);

    const intoOwn = await call("POST", "/api/auth/login", {
      body: { email: other.email, password: other.password, accountId: other.id },
    });
    expect(intoOwn.body.accountId).toBe(other.id);
    const intoJoined = await call("POST", "/api/auth/login", {
      body: { email: other.email, password: other.password, accountId: owner.id },
    });
    expect(intoJoined.status).toBe(200);
    expect(intoJoined.body.accountId).toBe(owner.id);
    // In its own account the user is still the owner; in the joined one a developer.
    expect((await as(intoOwn.body.token)("GET", "/api/members")).status).toBe(200);
    expect((await as(intoJoined.body.token)("GET", "/api/members")).status).toBe(403);
  });

  it("an expired link, a withdrawn one and one replaced by a newer invitation do not work", async () => {
    const owner = await newAccount();
    const email = uniqueEmail("late");
    const first = await as(owner.token)("POST", "/api/members/invitations", { email, role: "developer" });
    const firstToken = await invitationToken(email);
    const second = await as(owner.token)("POST", "/api/members/invitations", { email, role: "admin" });
    expect(second.status).toBe(201);
    const secondToken = await invitationToken(email, 2);
    // Re-inviting replaced the first: one pending invitation, the newest.
    const pending = (await as(owner.token)("GET", "/api/members/invitations")).body.invitations;
    expect(pending.map((i: { id: string }) => i.id)).toEqual([second.body.invitation.id]);
    const replaced = await call("POST", "/api/invitations/accept/sign-up", {
      body: { token: firstToken, password: "password123" },
    });
    expect(replaced.status).toBe(400);
    expect(replaced.body.error.message).toMatch(/replaced/);
    expect(first.body.invitation.id).not.toBe(second.body.invitation.id);

    await seed().update("Invitation", { id: second.body.invitation.id }, { expiresAt: ago("1 second") });
    const expired = await call("POST", "/api/invitations/accept/sign-up", {
      body: { token: secondToken, password: "password123" },
    });
    expect(expired.status).toBe(400);
    expect(expired.body.error.message).toMatch(/expired/);

    const third = await as(owner.token)("POST", "/api/members/invitations", { email, role: "viewer" });
    const thirdToken = await invitationToken(email, 3);
    const revoked = await as(owner.token)("DELETE", `/api/members/invitations/${third.body.invitation.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ revoked: true });
    expect((await as(owner.token)("DELETE", `/api/members/invitations/${third.body.invitation.id}`)).status).toBe(404);
    const withdrawn = await call("POST", "/api/invitations/accept/sign-up", {
      body: { token: thirdToken, password: "password123" },
    });
    expect(withdrawn.status).toBe(400);
    expect(
      (await call("POST", "/api/invitations/accept/sign-up", { body: { token: "made-up", password: "password123" } }))
        .status,
    ).toBe(400);
    expect((await members(owner)).length).toBe(1);
  });

  it("an address that is already a member cannot be invited (409); nobody invites above their own role", async () => {
    const owner = await newAccount();
    expect(
      (await as(owner.token)("POST", "/api/members/invitations", { email: owner.email, role: "viewer" })).status,
    ).toBe(409);
    const admin = await join(owner, "admin");
    const asAdmin = as(admin.token);
    expect((await asAdmin("POST", "/api/members/invitations", { email: uniqueEmail("x"), role: "admin" })).status).toBe(
      201,
    );
    const ownerInvite = await asAdmin("POST", "/api/members/invitations", { email: uniqueEmail("x"), role: "owner" });
    expect(ownerInvite.status).toBe(403);
    expect(ownerInvite.body.error.code).toBe("FORBIDDEN");
  });
});

describe("members", () => {
  it("a removed member is out at once: their login token is refused on the next request", async () => {
    const owner = await newAccount();
    const dev = await join(owner, "developer");
    expect((await as(dev.token)("GET", "/api/account")).status).toBe(200);
    const removed = await as(owner.token)("DELETE", `/api/members/${dev.member.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ removed: true });
    expect((await as(dev.token)("GET", "/api/account")).status).toBe(401);
    // Belonging to no account any more, the person cannot sign in either.
    expect((await call("POST", "/api/auth/login", { body: { email: dev.email, password: dev.password } })).status).toBe(
      401,
    );
    expect((await members(owner)).map((m) => m.email)).toEqual([owner.email]);
  });

  it("a role change applies from the member's next request, with the same token", async () => {
    const owner = await newAccount();
    const dev = await join(owner, "developer");
    const asDev = as(dev.token);
    expect((await asDev("GET", "/api/members")).status).toBe(403);
    const changed = await as(owner.token)("PATCH", `/api/members/${dev.member.id}`, { role: "admin" });
    expect(changed.status).toBe(200);
    expect(changed.body.member).toMatchObject({ id: dev.member.id, email: dev.email, role: "admin" });
    expect((await asDev("GET", "/api/members")).status).toBe(200);
    await as(owner.token)("PATCH", `/api/members/${dev.member.id}`, { role: "viewer" });
    expect((await asDev("GET", "/api/members")).status).toBe(403);
    const audit = await sql().query(
      `SELECT action FROM "AuditLogEntry" WHERE "accountId" = $1 AND ("action" LIKE 'member.%' OR "action" LIKE 'invitation.%') ORDER BY "createdAt"`,
      [owner.id],
    );
    expect(audit.rows.map((r) => r.action)).toEqual([
      "invitation.created",
      "member.joined",
      "member.role_changed",
      "member.role_changed",
    ]);
  });

  it("the last owner can neither leave, be demoted nor be removed (409 LAST_OWNER); with two, one may go", async () => {
    const owner = await newAccount();
    const me = (await members(owner))[0]!;
    const asOwner = as(owner.token);
    for (const res of [
      await asOwner("DELETE", `/api/members/${me.id}`),
      await asOwner("PATCH", `/api/members/${me.id}`, { role: "admin" }),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("LAST_OWNER");
    }
    const second = await join(owner, "owner");
    // Now one may leave; then the other is the last again, for removal by anyone too.
    expect((await as(second.token)("DELETE", `/api/members/${second.member.id}`)).status).toBe(200);
    expect((await as(second.token)("GET", "/api/account")).status).toBe(401);
    const admin = await join(owner, "admin");
    expect((await as(admin.token)("DELETE", `/api/members/${me.id}`)).status).toBe(403);
    const leave = await asOwner("DELETE", `/api/members/${me.id}`);
    expect(leave.status).toBe(409);
    expect(leave.body.error.code).toBe("LAST_OWNER");
  });

  it("two owners demoting each other at once: one succeeds, the other is the last owner", async () => {
    const owner = await newAccount();
    const me = (await members(owner))[0]!;
    const second = await join(owner, "owner");
    const results = await Promise.all([
      as(owner.token)("PATCH", `/api/members/${second.member.id}`, { role: "developer" }),
      as(second.token)("PATCH", `/api/members/${me.id}`, { role: "developer" }),
    ]);
    const statuses = results.map((r) => r.status).sort();
    // The one demoted first may find its own request refused as 403 (it no longer manages owners) or 409.
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    const owners = await sql().query(
      `SELECT count(*)::int AS n FROM "Membership" WHERE "accountId" = $1 AND role = 'owner'`,
      [owner.id],
    );
    expect(owners.rows[0].n).toBe(1);
  });

  it("an admin cannot make, change or remove an owner, but manages the other roles", async () => {
    const owner = await newAccount();
    const me = (await members(owner))[0]!;
    const admin = await join(owner, "admin");
    const dev = await join(owner, "developer");
    const asAdmin = as(admin.token);
    expect((await asAdmin("PATCH", `/api/members/${dev.member.id}`, { role: "owner" })).status).toBe(403);
    expect((await asAdmin("PATCH", `/api/members/${me.id}`, { role: "admin" })).status).toBe(403);
    expect((await asAdmin("DELETE", `/api/members/${me.id}`)).status).toBe(403);
    expect((await asAdmin("PATCH", `/api/members/${dev.member.id}`, { role: "viewer" })).status).toBe(200);
    expect((await asAdmin("DELETE", `/api/members/${dev.member.id}`)).status).toBe(200);
    // Leaving is removing oneself.
    expect((await asAdmin("DELETE", `/api/members/${admin.member.id}`)).status).toBe(200);
    expect((await asAdmin("GET", "/api/account")).status).toBe(401);
  });

  it("a developer or viewer gets 403 FORBIDDEN on every members route", async () => {
    const owner = await newAccount();
    const me = (await members(owner))[0]!;
    const invitation = (
      await as(owner.token)("POST", "/api/members/invitations", { email: uniqueEmail("p"), role: "viewer" })
    ).body.invitation;
    for (const role of ["developer", "viewer"]) {
      const m = await join(owner, role);
      const asM = as(m.token);
      for (const res of [
        await asM("GET", "/api/members"),
        await asM("GET", "/api/members/invitations"),
        await asM("POST", "/api/members/invitations", { email: uniqueEmail("q"), role: "viewer" }),
        await asM("DELETE", `/api/members/invitations/${invitation.id}`),
        await asM("PATCH", `/api/members/${me.id}`, { role: "viewer" }),
        await asM("DELETE", `/api/members/${me.id}`),
        await asM("DELETE", `/api/members/${m.member.id}`),
      ]) {
        expect(res.status, `${role}: ${res.text}`).toBe(403);
        expect(res.body.error.code).toBe("FORBIDDEN");
      }
    }
  });

  it("another account's members and invitations are 404 and untouched", async () => {
    const a = await newAccount();
    const b = await newAccount();
    const bMember = (await members(b))[0]!;
    const bInvitation = (
      await as(b.token)("POST", "/api/members/invitations", { email: uniqueEmail("b"), role: "viewer" })
    ).body.invitation;
    const asA = as(a.token);
    expect((await asA("PATCH", `/api/members/${bMember.id}`, { role: "viewer" })).status).toBe(404);
    expect((await asA("DELETE", `/api/members/${bMember.id}`)).status).toBe(404);
    expect((await asA("DELETE", `/api/members/invitations/${bInvitation.id}`)).status).toBe(404);
    expect((await asA("GET", "/api/members")).body.members.map((m: Member) => m.email)).toEqual([a.email]);
    expect((await asA("GET", "/api/members/invitations")).body.invitations).toEqual([]);
    expect((await members(b))[0]!.role).toBe("owner");
    expect((await as(b.token)("GET", "/api/members/invitations")).body.invitations).toHaveLength(1);
  });
});
