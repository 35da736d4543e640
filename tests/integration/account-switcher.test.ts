// docs/decisions.md §18: a person in several accounts switches between them in the dashboard. The switch is a
// form post (it works without JavaScript) that swaps the session cookie for one in the chosen account and ends
// the session it came from; an account the person is not in is refused, with a fixed sentence (never text from
// the address), and a post from another site is refused before anything happens.
import { describe, expect, it } from "vitest";
import { baseUrlOf, newAccount, newMember, randomIp } from "../support/api";
import { sessionCookie, trpc } from "../support/trpc";

async function switchTo(cookie: string, accountId: string, origin = baseUrlOf()) {
  const res = await fetch(`${baseUrlOf()}/dashboard/switch-account`, {
    method: "POST",
    redirect: "manual",
    headers: {
      origin,
      cookie,
      "content-type": "application/x-www-form-urlencoded",
      "x-forwarded-for": randomIp(),
    },
    body: new URLSearchParams({ accountId }),
  });
  const set = res.headers.getSetCookie().find((c) => c.startsWith("next-auth.session-token="));
  return { status: res.status, location: res.headers.get("location") ?? "", cookie: set?.split(";")[0] };
}

describe("the account switcher", () => {
  it("moves the session to another of the person's accounts, at their role there, and ends the one it left", async () => {
    const team = await newAccount({ companyName: "Team" });
    const member = await newMember(team, "viewer");
    // Their own account is the one they used last before joining (newMember signed in to the team's with
    // `accountId`, so that one is now their last): sign in, then switch to their own.
    const before = await sessionCookie(member.email, member.password);
    const me = await trpc("query", "auth.me", undefined, { cookie: before });
    expect(me.data.account.id).toBe(team.id);
    expect(me.data.role).toBe("viewer");
    const own = me.data.accounts.find((a: { id: string }) => a.id !== team.id);
    expect(me.data.accounts.map((a: { role: string }) => a.role).sort()).toEqual(["owner", "viewer"]);

    const switched = await switchTo(before, own.id);
    expect(switched.status).toBe(303);
    expect(new URL(switched.location, baseUrlOf()).pathname).toBe("/dashboard");
    expect(switched.cookie).toBeTruthy();
    const after = await trpc("query", "auth.me", undefined, { cookie: switched.cookie });
    expect(after.data).toMatchObject({ account: { id: own.id }, role: "owner", user: { email: member.email } });
    // The session it came from has ended.
    expect((await trpc("query", "auth.me", undefined, { cookie: before })).status).toBe(401);
  });

  it("refuses an account the person is not in, with a fixed message and the session unchanged", async () => {
    const a = await newAccount();
    const stranger = await newAccount();
    const cookie = await sessionCookie(a.email, a.password);
    const refused = await switchTo(cookie, stranger.id);
    expect(refused.status).toBe(303);
    expect(refused.location).toMatch(/\/dashboard\?switch=refused$/);
    expect(refused.cookie).toBeUndefined();
    expect((await trpc("query", "auth.me", undefined, { cookie })).data.account.id).toBe(a.id);
  });

  it("refuses a post from another site and a post without a session", async () => {
    const a = await newAccount();
    const b = await newMember(a, "admin");
    const cookie = await sessionCookie(b.email, b.password);
    const me = await trpc("query", "auth.me", undefined, { cookie });
    const other = me.data.accounts.find((x: { id: string }) => x.id !== me.data.account.id);
    const forged = await switchTo(cookie, other.id, "https://evil.example");
    expect(forged.cookie).toBeUndefined();
    expect((await trpc("query", "auth.me", undefined, { cookie })).data.account.id).toBe(me.data.account.id);
    // Without a session the dashboard's guard sends the browser to log in before the route runs.
    const anonymous = await switchTo("", a.id);
    expect([303, 307]).toContain(anonymous.status);
    expect(anonymous.cookie).toBeUndefined();
    expect(anonymous.location).toMatch(/\/login/);
  });
});
