import { expect, test, type Page } from "@playwright/test";
import { signUp, uniqueEmail } from "./support/helpers";

/**
 * The pages work under their Content-Security-Policy in real Chromium: no
 * script, style or connection the policy blocks, on log-in, sign-up, the
 * dashboard and the API reference.
 */
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

/** Collects every CSP violation the page reports, and console errors that mention the policy. */
async function watchViolations(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeFunction("__reportViolation", (v: string) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      (window as unknown as { __reportViolation(v: string): void }).__reportViolation(
        `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`,
      ),
    );
  });
  page.on("console", (msg) => {
    if (msg.type() === "error" && /Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
  });
  return violations;
}

test("log-in, sign-up and the dashboard run under their CSP with no violation", async ({ page }) => {
  const violations = await watchViolations(page);
  const login = await page.goto("/login");
  expect(login!.headers()["content-security-policy"]).toMatch(/script-src 'self' 'nonce-/);
  expect(login!.headers()["x-frame-options"]).toBe("DENY");
  // A hydrated form: client-side validation answers without a round trip.
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();

  await signUp(page, uniqueEmail("csp"), "correct horse battery");
  await expect(page.getByTestId("overview-status")).toHaveText("INACTIVE");
  await page.goto("/dashboard/numbers");
  await expect(page).toHaveURL(/\/dashboard\/numbers$/);
  await page.waitForLoadState("networkidle");
  expect(violations).toEqual([]);
});

test("the API reference (Scalar) renders under its CSP with no violation", async ({ page }) => {
  const violations = await watchViolations(page);
  const res = await page.goto("/docs");
  expect(res!.headers()["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
  await expect(page.getByRole("link", { name: /Liveness/ })).toBeVisible({ timeout: 30_000 });
  // Scalar keeps loading in the background (no network idle to wait for): give late violations time to show.
  await page.getByRole("link", { name: /Liveness/ }).click();
  await page.waitForTimeout(2000);
  expect(violations).toEqual([]);
});

test("no page can be framed", async ({ page }) => {
  await page.goto("/login");
  const framed = await page.evaluate(async (base) => {
    const frame = document.createElement("iframe");
    frame.src = `${base}/login`;
    document.body.appendChild(frame);
    await new Promise((r) => setTimeout(r, 1500));
    try {
      return Boolean(frame.contentDocument?.querySelector("form"));
    } catch {
      return false;
    }
  }, BASE);
  expect(framed).toBe(false);
});
