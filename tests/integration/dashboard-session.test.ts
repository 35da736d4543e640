import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { describe, expect, it } from "vitest";
import { baseUrlOf, newAccount, randomIp, sql } from "../support/api";

/**
 * The dashboard's two HTTP surfaces: next-auth's log-in (/api/session) and the
 * tRPC transport (/api/trpc). The browser suite drives them through pages;
 * these pin down what a browser cannot easily show.
 */
const base = () => baseUrlOf("strict");

/** Logs in the way next-auth's client does; returns the session cookie (or null) and where it was sent. */
async function sessionLogin(
  email: string,
  password: string,
  ip = randomIp(),
): Promise<{ cookie: string | null; setCookie: string | null; url: string }> {
  const csrf = await fetch(`${base()}/api/session/csrf`, { headers: { "x-forwarded-for": ip } });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const csrfCookie = csrf.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const res = await fetch(`${base()}/api/session/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie, "x-forwarded-for": ip },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  const session = res.headers.getSetCookie().find((c) => c.startsWith("next-auth.session-token="));
  const body = (await res.json()) as { url: string };
  return { cookie: session ? session.split(";")[0]! : null, setCookie: session ?? null, url: body.url };
}

async function trpcQuery(path: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base()}/api/trpc/${path}`, { headers });
  return { status: res.status, body: await res.json() };
}

describe("dashboard sessions", () => {
  it("log-in gives an httpOnly session cookie that drives the same procedures as the API", async () => {
    const acct = await newAccount();
    const { cookie, setCookie } = await sessionLogin(acct.email.toUpperCase(), acct.password);
    expect(cookie).toBeTruthy();
    expect(setCookie).toMatch(/;\s*HttpOnly/i);
    expect(setCookie).toMatch(/;\s*SameSite=Lax/i);
    const me = await trpcQuery("account.get", { cookie: cookie! });
    expect(me.status).toBe(200);
    expect(me.body.result.data.account).toMatchObject({ id: acct.id, email: acct.email, status: "INACTIVE" });
    // The session endpoint tells the browser its user id, never the login token inside.
    const session = await fetch(`${base()}/api/session/session`, { headers: { cookie: cookie! } }).then((r) =>
      r.json(),
    );
    // The session names the person (docs/decisions.md §18); the account comes with the login token inside.
    const person = await sql().query(`SELECT id FROM "User" WHERE email = $1`, [acct.email]);
    expect(session.user).toEqual({ id: person.rows[0].id });
    expect(JSON.stringify(session)).not.toMatch(/eyJ/);
  });

  it("a wrong password gets the API's one sentence and no session", async () => {
    const acct = await newAccount();
    const { cookie, url } = await sessionLogin(acct.email, "wrong-password");
    expect(cookie).toBeNull();
    expect(new URL(url).searchParams.get("error")).toBe("Invalid email or password.");
  });

  it("log-in through the dashboard counts against the same limits as POST /api/auth/login", async () => {
    const acct = await newAccount();
    const attacker = randomIp();
    const errors: (string | null)[] = [];
    for (let i = 0; i < 11; i++)
      errors.push(new URL((await sessionLogin(acct.email, `guess-${i}`, attacker)).url).searchParams.get("error"));
    expect(errors.slice(0, 10).every((e) => e === "Invalid email or password.")).toBe(true);
    expect(errors[10]).toMatch(/Too many/);
    // Even the right password is refused from that address while the limit holds…
    expect((await sessionLogin(acct.email, acct.password, attacker)).cookie).toBeNull();
    // …but the owner, elsewhere, is not locked out.
    expect((await sessionLogin(acct.email, acct.password, acct.ip)).cookie).toBeTruthy();
  });

  it("sign-out ends every session: a cookie copied before it fails after it, on tRPC and on the dashboard", async () => {
    const acct = await newAccount();
    const copied = (await sessionLogin(acct.email, acct.password)).cookie!;
    const other = (await sessionLogin(acct.email, acct.password)).cookie!;
    expect((await trpcQuery("account.get", { cookie: copied })).status).toBe(200);

    const out = await fetch(`${base()}/api/trpc/auth.logout`, {
      method: "POST",
      headers: { cookie: other, "content-type": "application/json" },
      body: "{}",
    });
    expect(out.status).toBe(200);
    expect(((await out.json()) as any).result.data).toEqual({ loggedOut: true });

    for (const cookie of [copied, other]) {
      const me = await trpcQuery("account.get", { cookie });
      expect(me.status).toBe(401);
      expect(me.body.error.data.appError.code).toBe("UNAUTHORIZED");
      const page = await fetch(`${base()}/dashboard`, { headers: { cookie }, redirect: "manual" });
      expect([303, 307, 308]).toContain(page.status);
      expect(page.headers.get("location")).toMatch(/\/login/);
    }
    // The API key is a separate credential; a new log-in starts a new session.
    expect((await acct.as("GET", "/api/account")).status).toBe(200);
    const again = (await sessionLogin(acct.email, acct.password)).cookie!;
    expect((await trpcQuery("account.get", { cookie: again })).status).toBe(200);
  });

  it("log out (next-auth's sign-out) ends this browser's session only: a copy of its cookie dies, other browsers live", async () => {
    const acct = await newAccount();
    const leaving = (await sessionLogin(acct.email, acct.password)).cookie!;
    const staying = (await sessionLogin(acct.email, acct.password)).cookie!;
    const csrf = await fetch(`${base()}/api/session/csrf`, { headers: { cookie: leaving } });
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const csrfCookie = csrf.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const out = await fetch(`${base()}/api/session/signout`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: `${leaving}; ${csrfCookie}` },
      body: new URLSearchParams({ csrfToken, callbackUrl: "/login?notice=signed-out", json: "true" }),
    });
    expect(out.status).toBe(200);
    // The browser's cookie is cleared, and a copy taken before is refused (its token is ended server-side).
    expect(out.headers.getSetCookie().some((c) => /^next-auth\.session-token=;/.test(c))).toBe(true);
    const copy = await trpcQuery("account.get", { cookie: leaving });
    expect(copy.status).toBe(401);
    expect(copy.body.error.data.appError.code).toBe("UNAUTHORIZED");
    // Ended by its jti, as the person's (docs/decisions.md §18): the row names the user.
    const ended = await sql().query(
      `SELECT count(*)::int AS n FROM "EndedSession" e JOIN "User" u ON u.id = e."userId" WHERE u.email = $1`,
      [acct.email],
    );
    expect(ended.rows[0].n).toBe(1);
    // Another browser of the same account stays signed in; so does the API key.
    expect((await trpcQuery("account.get", { cookie: staying })).status).toBe(200);
    expect((await acct.as("GET", "/api/account")).status).toBe(200);
  });

  it("the tRPC transport takes only a session: no cookie, or an API key, is 401", async () => {
    const acct = await newAccount();
    const anonymous = await trpcQuery("account.get", {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.data.appError.code).toBe("UNAUTHORIZED");
    const withKey = await trpcQuery("account.get", { authorization: `Bearer ${acct.apiKey}` });
    expect(withKey.status).toBe(401);
    const forged = await trpcQuery("account.get", { cookie: "next-auth.session-token=not-a-session" });
    expect(forged.status).toBe(401);
  });

  it("a refused procedure carries tRPC's code of its status, not an internal error's", async () => {
    const acct = await newAccount();
    const { cookie } = await sessionLogin(acct.email, acct.password);
    const missing = await trpcQuery(
      `calls.get?input=${encodeURIComponent(JSON.stringify({ callSid: "CA00000000000000000000000000000000" }))}`,
      { cookie: cookie! },
    );
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe(TRPC_ERROR_CODES_BY_KEY.NOT_FOUND);
    expect(missing.body.error.data).toMatchObject({
      code: "NOT_FOUND",
      httpStatus: 404,
      appError: { code: "NOT_FOUND", message: "No such call." },
    });
    const anonymous = await trpcQuery("account.get", {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe(TRPC_ERROR_CODES_BY_KEY.UNAUTHORIZED);
    expect(anonymous.body.error.data).toMatchObject({ code: "UNAUTHORIZED", httpStatus: 401 });
  });

  it("signing out through next-auth's own endpoint ends every session too", async () => {
    const acct = await newAccount();
    const copied = (await sessionLogin(acct.email, acct.password)).cookie!;
    const csrf = await fetch(`${base()}/api/session/csrf`, { headers: { cookie: copied } });
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const cookies = [copied, ...csrf.headers.getSetCookie().map((c) => c.split(";")[0])].join("; ");
    const out = await fetch(`${base()}/api/session/signout`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies },
      body: new URLSearchParams({ csrfToken, json: "true" }),
    });
    expect(out.status).toBe(200);
    expect((await trpcQuery("account.get", { cookie: copied })).status).toBe(401);
  });

  it("writes must be JSON, so a cross-site form cannot post one", async () => {
    const acct = await newAccount();
    const { cookie } = await sessionLogin(acct.email, acct.password);
    const res = await fetch(`${base()}/api/trpc/apiKeys.create`, {
      method: "POST",
      headers: { cookie: cookie!, "content-type": "text/plain" },
      body: JSON.stringify({ label: "sneaky" }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe("VALIDATION_FAILED");
    const list = await trpcQuery("apiKeys.list", { cookie: cookie! });
    expect(list.body.result.data.apiKeys.map((k: { label: string | null }) => k.label)).not.toContain("sneaky");
  });
});
