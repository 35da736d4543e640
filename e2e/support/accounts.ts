import { expect, type Page } from "@playwright/test";
import { uniqueEmail } from "./helpers";

/**
 * Accounts for the browser suite made over the REST API (faster than the
 * sign-up page, which dashboard.spec covers), each from its own client IP so
 * the log-in and register rate limits (10 a minute per IP) never trip.
 */
const BASE = () => process.env.E2E_BASE_URL!;
export const PASSWORD = "correct horse battery";

export function randomIp(): string {
  const b = () => 1 + Math.floor(Math.random() * 250);
  return `10.${b()}.${b()}.${b()}`;
}

export type TestAccount = { email: string; apiKey: string; engineVoiceUrl: string };

/** Calls the REST API with the account's key; fails the test on anything but 2xx. */
export async function api<T = any>(
  key: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  const res = await fetch(`${BASE()}${path}`, {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${key}`,
      "x-forwarded-for": randomIp(),
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
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

/** Logs the browser in through the log-in page; leaves it on the overview. */
export async function logIn(page: Page, account: TestAccount): Promise<void> {
  await page.setExtraHTTPHeaders({ "x-forwarded-for": randomIp() });
  await page.goto("/login");
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
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
