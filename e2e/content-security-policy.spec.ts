import { expect, test } from "@playwright/test";
import { signUp, twoFrames, uniqueEmail } from "../tests/support/helpers";
import { watchRequests, watchViolations } from "../tests/support/page-checks";

/**
 * The pages work under their Content-Security-Policy in real Chromium: no
 * script, style or connection the policy blocks, on log-in, sign-up, the
 * dashboard and the API reference.
 */
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

test("log-in, sign-up and the dashboard run under their CSP with no violation", async ({ page }) => {
  const violations = await watchViolations(page);
  const login = await page.goto("/login");
  expect(login!.headers()["content-security-policy"]).toMatch(/script-src 'self' 'nonce-/);
  expect(login!.headers()["x-frame-options"]).toBe("DENY");
  // A hydrated form: client-side validation answers without a round trip.
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();

  await signUp(page, uniqueEmail("csp"), "correct horse battery");
  await expect(page.getByTestId("overview-status")).toHaveText("Inactive");
  await page.goto("/dashboard/numbers");
  await expect(page).toHaveURL(/\/dashboard\/numbers$/);
  await page.waitForLoadState("networkidle");
  expect(violations).toEqual([]);
});

test("the API reference (Scalar) renders under its CSP with no violation", async ({ page }) => {
  const violations = await watchViolations(page);
  const requests = watchRequests(page);
  const res = await page.goto("/docs");
  expect(res!.headers()["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
  await expect(page.getByRole("link", { name: /Liveness/ })).toBeVisible({ timeout: 30_000 });
  // Scalar renders an operation when it is opened: wait until it is on screen, nothing is loading and the page
  // has drawn it, so that a violation its rendering causes has been reported.
  await page.getByRole("link", { name: /Liveness/ }).click();
  await expect(page.getByRole("heading", { name: "Liveness", exact: true })).toBeInViewport();
  await requests.quiet();
  await twoFrames(page);
  expect(violations).toEqual([]);
});

test("no page can be framed", async ({ page }) => {
  await page.goto("/login");
  const framed = await page.evaluate(async (base) => {
    const frame = document.createElement("iframe");
    // A frame the browser refuses still fires load (with its error page in it); a framed page fires it once loaded.
    const loaded = new Promise((r) => frame.addEventListener("load", r, { once: true }));
    frame.src = `${base}/login`;
    document.body.appendChild(frame);
    await Promise.race([loaded, new Promise((r) => setTimeout(r, 10_000))]);
    try {
      return Boolean(frame.contentDocument?.querySelector("form"));
    } catch {
      return false;
    }
  }, BASE);
  expect(framed).toBe(false);
});

test("the billing pages and the 404 page are styled under their CSP, with no violation", async ({ page }) => {
  const violations = await watchViolations(page);
  // The billing pages are route handlers: their style element is allowed by its hash.
  const billing = await page.goto("/billing/checkout/not-a-token");
  expect(billing!.status()).toBe(404);
  expect(billing!.headers()["content-security-policy"]).toMatch(/style-src 'sha256-/);
  await expect(page.getByRole("heading", { name: "Link not valid" })).toBeVisible();
  // Styled: the card's white box on the page's slate background, not the browser's defaults.
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(248, 250, 252)");
  expect(await page.locator(".card").evaluate((el) => getComputedStyle(el).borderRadius)).not.toBe("0px");

  const missing = await page.goto("/no-such-page");
  expect(missing!.status()).toBe(404);
  await expect(page.getByTestId("site-not-found")).toBeVisible();
  await expect(page.getByRole("link", { name: "Go to the home page" })).toBeVisible();
  // Tailwind's stylesheet applies (a dashed border from the empty state), and the way home works.
  expect(await page.getByTestId("site-not-found").evaluate((el) => getComputedStyle(el).borderStyle)).toBe("dashed");
  await page.getByRole("link", { name: "Go to the home page" }).click();
  await expect(page).toHaveURL(/\/(login)?$/);
  expect(violations).toEqual([]);
});
