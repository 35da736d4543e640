import { expect, test } from "@playwright/test";
import { createAccount, signedIn } from "../tests/support/accounts";
import { screenshot, screenshots } from "../tests/support/helpers";

// issue 17: where a signed-in visitor lands, the dashboard's own 404, the favicon and the dark theme.
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

test("a signed-in visitor to /, /login or /signup goes to the dashboard (or where log-in was to return)", async ({
  page,
}) => {
  const account = await createAccount("signed-in", { paid: false });
  // Signed out, the three pages are there.
  await page.goto("/");
  await expect(page.getByRole("link", { name: "Sign up" })).toBeVisible();

  await signedIn(page, account);
  for (const path of ["/", "/login", "/signup"]) {
    await page.goto(path);
    await expect(page, `${path} while signed in`).toHaveURL(/\/dashboard$/);
    await expect(page.getByTestId("account-email")).toHaveText(account.email);
  }
  await page.goto("/login?callbackUrl=%2Fdashboard%2Fkeys");
  await expect(page).toHaveURL(/\/dashboard\/keys$/);
  // Never another site, and never back to a page that would send us here again.
  await page.goto("/login?callbackUrl=%2F%2Fevil.example");
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/login?callbackUrl=%2Flogin");
  await expect(page).toHaveURL(/\/dashboard$/);

  // Logged out (this browser's session ends): the log-in page shows again, with no loop.
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto("/login");
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
});

test("an unknown dashboard path is a 404 inside the dashboard's shell, at desktop and phone width", async ({
  page,
}) => {
  const account = await createAccount("not-found", { paid: false });
  await signedIn(page, account);
  const res = await page.goto("/dashboard/no-such-page/deeper");
  expect(res!.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
  await expect(page.getByTestId("dashboard-not-found")).toBeVisible();
  // The shell is there: the account, and the navigation to go on.
  await expect(page.getByTestId("account-email")).toHaveText(account.email);
  await expect(page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Calls" })).toBeVisible();
  await screenshots(page, "dashboard-not-found");
  await page.getByRole("link", { name: "Go to the overview" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  // Signed out, the same path asks for log-in first rather than telling strangers what exists.
  // Leave the dashboard first: its polling would otherwise see the ended session and (rightly)
  // send the browser to log-in for /dashboard, racing the navigation below.
  await page.goto("about:blank");
  await page.context().clearCookies();
  await page.goto("/dashboard/no-such-page");
  await expect(page).toHaveURL(/\/login\?callbackUrl=%2Fdashboard%2Fno-such-page$/);
});

test("every page names a favicon, and it is served", async ({ page, request }) => {
  await page.goto("/login");
  const href = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(href).toMatch(/^\/icon\.svg/);
  const icon = await request.get(href!);
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg+xml");
  expect(await icon.text()).toContain("<svg");
});

test.describe("with the system set to dark", () => {
  test.use({ colorScheme: "dark" });

  test("the dashboard renders its dark theme: dark surfaces, light text, readable controls", async ({ page }) => {
    const account = await createAccount("dark", { paid: false });
    await signedIn(page, account);
    await page.goto("/dashboard");
    const colours = await page.evaluate(() => {
      const bg = (el: Element | null) => (el ? getComputedStyle(el).backgroundColor : "");
      const fg = (el: Element | null) => (el ? getComputedStyle(el).color : "");
      return {
        body: bg(document.body),
        text: fg(document.querySelector("h1")),
        aside: bg(document.querySelector("aside")),
      };
    });
    // Lightness (0 to 1) of Tailwind 4's colours as the browser reports them (oklch, lab or rgb).
    const lightness = (c: string) => {
      const oklch = /oklch\(([\d.]+)/.exec(c);
      if (oklch) return Number(oklch[1]);
      const lab = /^lab\(([\d.]+)/.exec(c);
      if (lab) return Number(lab[1]) / 100;
      const [r, g, b] = (c.match(/[\d.]+/g) ?? []).map(Number);
      return (0.299 * r! + 0.587 * g! + 0.114 * b!) / 255;
    };
    expect(lightness(colours.body), `body ${colours.body}`).toBeLessThan(0.3);
    expect(lightness(colours.aside), `aside ${colours.aside}`).toBeLessThan(0.3);
    expect(lightness(colours.text), `heading ${colours.text}`).toBeGreaterThan(0.85);
    await screenshots(page, "dark-overview");
    await page.goto("/dashboard/numbers");
    await expect(page.getByTestId("number-form")).toBeVisible();
    await screenshot(page, "dark-numbers");
  });
});

test("the first tab stop skips the navigation to the page's content", async ({ page }) => {
  const account = await createAccount("skip-link", { paid: false });
  await signedIn(page, account);
  await page.goto("/dashboard/numbers");
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press("Enter");
  await expect(page.locator("main#content")).toBeFocused();
  // The next tab stop is inside the page, not the menu.
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => Boolean(document.activeElement?.closest("main")))).toBe(true);
});
