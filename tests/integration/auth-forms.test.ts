import { describe, expect, it } from "vitest";
import { baseUrlOf, newAccount, randomIp, uniqueEmail } from "../support/api";

/** The log-in and sign-up forms are in the HTML and post without JavaScript. */
const base = () => baseUrlOf("strict");

function post(
  path: string,
  fields: Record<string, string>,
  opts: { origin?: string | null; cookie?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    "x-forwarded-for": randomIp(),
    ...opts.headers,
  };
  if (opts.origin !== null) headers.origin = opts.origin ?? base();
  if (opts.cookie) headers.cookie = opts.cookie;
  return fetch(`${base()}${path}`, { method: "POST", redirect: "manual", headers, body: new URLSearchParams(fields) });
}

const sessionCookie = (res: Response) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith("next-auth.session-token="))
    ?.split(";")[0] ?? null;

describe("auth forms without JavaScript", () => {
  it("the log-in and sign-up pages' HTML holds a form that posts", async () => {
    for (const [page, action] of [
      ["/login", "/login/submit"],
      ["/signup", "/signup/submit"],
      ["/forgot-password", "/forgot-password/send"],
    ] as const) {
      const html = await fetch(`${base()}${page}`).then((r) => r.text());
      expect(html).toMatch(
        new RegExp(`<form[^>]*method="post"[^>]*action="${action}"|<form[^>]*action="${action}"[^>]*method="post"`),
      );
      expect(html).toMatch(/name="email"/);
    }
    expect(await fetch(`${base()}/login`).then((r) => r.text())).toContain('href="/forgot-password"');
  });

  it("log-in posts, gets the session cookie and goes to the page asked for", async () => {
    const acct = await newAccount();
    const res = await post("/login/submit", {
      email: acct.email,
      password: acct.password,
      callbackUrl: "/dashboard/keys",
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/keys");
    const cookie = sessionCookie(res);
    expect(cookie).toBeTruthy();
    expect(res.headers.getSetCookie().join()).toMatch(/HttpOnly/i);
    const me = await fetch(`${base()}/api/trpc/account.get`, { headers: { cookie: cookie! } });
    expect(me.status).toBe(200);
  });

  it("a wrong password goes back to the form with the API's sentence and no session", async () => {
    const acct = await newAccount();
    const res = await post("/login/submit", {
      email: acct.email,
      password: "wrong password",
      callbackUrl: "https://evil.example/",
    });
    expect(res.status).toBe(303);
    const to = new URL(res.headers.get("location")!, base());
    expect(to.pathname).toBe("/login");
    expect(to.searchParams.get("error")).toBe("Invalid email or password.");
    expect(to.searchParams.get("callbackUrl")).toBeNull();
    expect(sessionCookie(res)).toBeNull();
  });

  it("a post from another site is refused (no log-in CSRF)", async () => {
    const acct = await newAccount();
    const attempts = [
      { origin: "https://evil.example" },
      { origin: null },
      { origin: "null" },
      // A browser says where the post came from; that beats an Origin header that happens to match.
      { headers: { "sec-fetch-site": "cross-site" } },
    ];
    for (const opts of attempts) {
      const res = await post("/login/submit", { email: acct.email, password: acct.password }, opts);
      expect(res.status).toBe(303);
      expect(sessionCookie(res)).toBeNull();
      expect(new URL(res.headers.get("location")!, base()).searchParams.get("error")).toMatch(/this site's own/);
    }
  });

  it("a same-origin browser post from a no-referrer page (Origin: null) is accepted by Sec-Fetch-Site", async () => {
    const acct = await newAccount();
    const res = await post(
      "/login/submit",
      { email: acct.email, password: acct.password },
      { origin: "null", headers: { "sec-fetch-site": "same-origin" } },
    );
    expect(res.headers.get("location")).toBe("/dashboard");
    expect(sessionCookie(res)).toBeTruthy();
  });

  it("sign-up posts, signs in and shows the first API key once on /signup/welcome", async () => {
    const email = uniqueEmail("nojs");
    const res = await post("/signup/submit", { email, password: "correct horse", companyName: "" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/signup/welcome");
    const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0]!);
    const keyCookie = res.headers.getSetCookie().find((c) => c.startsWith("routekit-new-api-key="))!;
    expect(keyCookie).toMatch(/Path=\/signup\/welcome/);
    expect(keyCookie).toMatch(/HttpOnly/);
    const key = keyCookie.split(";")[0]!.split("=")[1]!;
    const page = await fetch(`${base()}/signup/welcome`, { headers: { cookie: cookies.join("; ") } }).then((r) =>
      r.text(),
    );
    expect(page).toContain(key);
    const me = await fetch(`${base()}/api/account`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await me.json()) as any).account.email).toBe(email);

    const taken = await post("/signup/submit", { email, password: "correct horse" });
    expect(new URL(taken.headers.get("location")!, base()).searchParams.get("error")).toMatch(/already/i);
  });
});
