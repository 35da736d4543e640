import { type BrowserContext, expect, type Page, request } from "@playwright/test";
import { randomIp, uniqueEmail } from "./helpers";

/**
 * Accounts for the browser suite made over the REST API (faster than the
 * sign-up page, which dashboard.spec covers), each from its own client IP so
 * the log-in and register rate limits (10 a minute per IP) never trip, and
 * signed in over next-auth's own credentials endpoint (faster than the log-in
 * page, which dashboard.spec, password-reset.spec and settings.spec cover).
 */
const BASE = () => process.env.E2E_BASE_URL!;
const PASSWORD = "correct horse battery";

export type TestAccount = { email: string; apiKey: string; engineVoiceUrl: string };

/** Calls the REST API with the account's key and gives back its answer, whatever the status. */
export function apiResponse(
  key: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<Response> {
  return fetch(`${BASE()}${path}`, {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${key}`,
      "x-forwarded-for": randomIp(),
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
}

/** Calls the REST API with the account's key; fails the test on anything but 2xx. */
export async function api<T = any>(
  key: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  const res = await apiResponse(key, path, init);
  expect(res.status, `${init.method ?? "GET"} ${path}: ${res.status}`).toBeLessThan(300);
  return (await res.json()) as T;
}

/** A new account; `paid` pays its local checkout (a POST to the checkout link) so it is ACTIVE. */
export async function createAccount(tag: string, opts: { paid: boolean }): Promise<TestAccount> {
  const email = uniqueEmail(tag);
  const res = await fetch(`${BASE()}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": randomIp() },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { apiKey: string; checkoutUrl: string; engineVoiceUrl: string };
  if (opts.paid) {
    const pay = await fetch(body.checkoutUrl, {
      method: "POST",
      redirect: "manual",
      headers: { "x-forwarded-for": randomIp() },
    });
    expect(pay.status).toBeLessThan(400);
  }
  return { email, apiKey: body.apiKey, engineVoiceUrl: body.engineVoiceUrl };
}

/** A dashboard session's cookies, the storage state a browser context needs to be signed in. */
export type Session = Awaited<ReturnType<BrowserContext["cookies"]>>;

/**
 * Signs the account in as the log-in page does (next-auth's credentials callback, after its CSRF token), over
 * HTTP instead of the page: the same `auth.login` procedure, password check and session cookie, without loading
 * and hydrating /login first. Sign in once and give the cookies to every context that needs this account.
 */
export async function sessionOf(account: { email: string }, password = PASSWORD): Promise<Session> {
  const http = await request.newContext({ baseURL: BASE(), extraHTTPHeaders: { "x-forwarded-for": randomIp() } });
  try {
    const csrf = await http.get("/api/session/csrf");
    expect(csrf.status(), "next-auth's CSRF token").toBe(200);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const res = await http.post("/api/session/callback/credentials", {
      form: { csrfToken, email: account.email, password, callbackUrl: `${BASE()}/dashboard`, json: "true" },
      maxRedirects: 0,
    });
    expect(res.status(), `sign-in of ${account.email}: ${await res.text()}`).toBe(200);
    const { cookies } = await http.storageState();
    expect(cookies.map((c) => c.name)).toContain("next-auth.session-token");
    return cookies;
  } finally {
    await http.dispose();
  }
}

/**
 * Gives the page's browser context the account's session (signing the account in first when given an account),
 * and the page a client address of its own. The page stays where it is: the test opens the page it is about.
 */
export async function signedIn(page: Page, who: TestAccount | Session): Promise<void> {
  const session = Array.isArray(who) ? who : await sessionOf(who);
  await page.setExtraHTTPHeaders({ "x-forwarded-for": randomIp() });
  await page.context().addCookies(session);
}

/** Everything in `locator`'s box lies within the page's width: on screen at a phone's width without scrolling sideways. */
export async function expectWithinViewport(
  page: Page,
  locator: ReturnType<Page["locator"]>,
  what: string,
): Promise<void> {
  const width = page.viewportSize()!.width;
  await expect(locator, what).toBeVisible();
  const box = (await locator.boundingBox())!;
  expect(box.x, `${what} starts on screen`).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width, `${what} ends within ${width} px`).toBeLessThanOrEqual(width);
}
