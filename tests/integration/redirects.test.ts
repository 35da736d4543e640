import { describe, expect, it } from "vitest";
import { baseUrlOf, newAccount, randomIp } from "../support/api";
import { sessionCookie } from "../support/trpc";

/**
 * docs/decisions.md §20: every redirect after a form, or taking `callbackUrl`, stays
 * on this service; anything a browser could read as another origin becomes
 * /dashboard. The guard itself is tests/unit/safe-redirect.test.ts; these are
 * the attacks of issue #22 against the built server.
 */
const base = () => baseUrlOf("strict");
const origin = () => new URL(base()).origin;

/** Where a browser on this service goes with a Location header. */
const destination = (location: string | null) => new URL(location ?? "", `${base()}/login`);

export const OPEN_REDIRECT_CALLBACKS = [
  "/.//evil.example/",
  "/%2e//evil.example/",
  "/..//evil.example/",
  "//evil.example/",
  "/\\evil.example/",
  "/\t/evil.example/",
  "/\n/evil.example/",
  "/%2F%2Fevil.example/",
  "https://evil.example/",
  "javascript:alert(1)",
];

function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${base()}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-forwarded-for": randomIp(),
      origin: base(),
      ...headers,
    },
    body: new URLSearchParams(fields),
  });
}

describe("no open redirect", () => {
  it("a signed-in visitor at /login?callbackUrl=… goes to a page of this service, never another origin", async () => {
    const acct = await newAccount();
    const cookie = await sessionCookie(acct.email, acct.password);
    for (const callbackUrl of OPEN_REDIRECT_CALLBACKS) {
      const res = await fetch(`${base()}/login?callbackUrl=${encodeURIComponent(callbackUrl)}`, {
        headers: { cookie },
        redirect: "manual",
      });
      expect(res.status, callbackUrl).toBe(307);
      const to = destination(res.headers.get("location"));
      expect(to.origin, `${callbackUrl} → ${res.headers.get("location")}`).toBe(origin());
      expect(to.pathname, callbackUrl).toBe("/dashboard");
    }
    // The exact request, byte for byte.
    const exact = await fetch(`${base()}/login?callbackUrl=%2F.%2F%2Fevil.example%2F`, {
      headers: { cookie },
      redirect: "manual",
    });
    expect(destination(exact.headers.get("location")).href).toBe(`${origin()}/dashboard`);
    // A page of this service is still where it goes.
    const kept = await fetch(`${base()}/login?callbackUrl=${encodeURIComponent("/dashboard/keys?x=1")}`, {
      headers: { cookie },
      redirect: "manual",
    });
    expect(destination(kept.headers.get("location")).href).toBe(`${origin()}/dashboard/keys?x=1`);
  });

  it('POST /login/submit with callbackUrl "/\\t/evil.example/" (and the rest) lands on /dashboard', async () => {
    const acct = await newAccount();
    for (const callbackUrl of OPEN_REDIRECT_CALLBACKS) {
      const res = await post("/login/submit", { email: acct.email, password: acct.password, callbackUrl });
      expect(res.status, callbackUrl).toBe(303);
      expect(res.headers.get("location"), callbackUrl).toBe("/dashboard");
      // A failed log-in carries no unsafe callbackUrl back to the form either.
      const failed = await post("/login/submit", { email: acct.email, password: "wrong password", callbackUrl });
      const back = destination(failed.headers.get("location"));
      expect(back.origin).toBe(origin());
      expect(back.searchParams.get("callbackUrl"), callbackUrl).toBeNull();
    }
  });

  it("next-auth: callbackUrl=%25 in the form body is never a 500, and an unsafe callbackUrl is answered with this service's dashboard", async () => {
    const acct = await newAccount();
    const ip = randomIp();
    const csrf = await fetch(`${base()}/api/session/csrf`, { headers: { "x-forwarded-for": ip } });
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const csrfCookie = csrf.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    for (const action of ["callback/credentials", "signin/credentials", "signout"]) {
      for (const callbackUrl of ["%", "%25", "//evil.example/", "/.//evil.example/", "javascript:alert(1)"]) {
        const res = await post(
          `/api/session/${action}`,
          { csrfToken, email: acct.email, password: acct.password, callbackUrl, json: "true" },
          { cookie: csrfCookie, "x-forwarded-for": ip },
        );
        const text = await res.text();
        const seen = `${action} ${callbackUrl}: ${res.status} ${text.slice(0, 200)}`;
        expect(res.status, seen).toBeLessThan(500);
        const location = res.headers.get("location");
        if (location) expect(destination(location).origin, seen).toBe(origin());
        if (res.status >= 400) {
          expect(JSON.parse(text).error?.code, seen).toBeTruthy();
          continue;
        }
        const url = (JSON.parse(text) as { url?: string }).url;
        if (url) expect(new URL(url).origin, seen).toBe(origin());
        // A successful credentials callback goes where callbackUrl said, made safe; sign-in and sign-out go to next-auth's own pages.
        if (url && action === "callback/credentials") expect(new URL(url).pathname, seen).toBe("/dashboard");
      }
    }
  });

  it("a cookie or query callbackUrl that looks like a path but leaves the origin is answered with the dashboard", async () => {
    const res = await fetch(`${base()}/api/session/csrf`, {
      headers: { cookie: `next-auth.callback-url=${encodeURIComponent("/.//evil.example/")}` },
    });
    expect(res.status).toBeLessThan(500);
    const set = res.headers.getSetCookie().find((c) => c.startsWith("next-auth.callback-url="));
    if (set) expect(decodeURIComponent(set.split(";")[0]!.split("=")[1]!)).toBe(`${origin()}/dashboard`);
  });
});
