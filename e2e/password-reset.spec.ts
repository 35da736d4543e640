import { expect, test } from "@playwright/test";
import { linkFromOutbox } from "../tests/support/outbox";
import { mkdirSync } from "node:fs";
import type { Page } from "@playwright/test";
import { createAccount } from "../tests/support/accounts";
import { randomIp, SCREENSHOT_DIR, screenshots, uniqueEmail } from "../tests/support/helpers";

const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

test("forgot password: the link from the mail sets a new password, used once", async ({ page }) => {
  // An account made over the API, never signed in here: the test starts signed out, at the log-in page.
  const { email } = await createAccount("reset", { paid: false });
  await page.setExtraHTTPHeaders({ "x-forwarded-for": randomIp() });

  await page.goto("/login");
  await page.getByRole("link", { name: "Forgot password?" }).click();
  await expect(page).toHaveURL(/\/forgot-password$/);
  await page.getByLabel("Email").fill(email);
  await screenshots(page, "forgot-password");
  await page.getByRole("button", { name: "Send the link" }).click();
  await expect(page.getByTestId("reset-requested")).toContainText("If an account uses that address");

  const link = await linkFromOutbox(page, email, /Reset your Routekit password/, "/reset-password");
  await screenshots(page, "dev-outbox");
  await page.goto(link);
  await page.getByLabel("New password").fill("the new password");
  await screenshots(page, "reset-password");
  await page.getByRole("button", { name: "Set the new password" }).click();
  await expect(page).toHaveURL(/\/login\?notice=password-reset/);
  await expect(page.getByTestId("login-notice")).toContainText("Log in with the new password");

  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("the new password");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  // The link works once.
  await page.goto(link);
  await page.getByLabel("New password").fill("yet another password");
  await page.getByRole("button", { name: "Set the new password" }).click();
  await expect(page.getByTestId("reset-error")).toContainText("invalid, already used or expired");
});

/** The shared helper waits for frames with a script; without JavaScript a plain capture at both widths does. */
async function staticScreenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}-desktop.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}-phone.png`, fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
}

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the sign-up and log-in forms work before any script runs", async ({ page, context }) => {
    const email = uniqueEmail("nojs");
    await page.setExtraHTTPHeaders({ "x-forwarded-for": randomIp() });
    await page.goto("/signup");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign up" }).click();
    await expect(page).toHaveURL(/\/signup\/welcome$/);
    await expect(page.getByTestId("signup-api-key")).toContainText("rtk_");
    await staticScreenshots(page, "signup-welcome-nojs");
    await page.getByTestId("continue-to-dashboard").click();
    await expect(page).toHaveURL(/\/dashboard$/);

    await context.clearCookies();
    await page.goto("/login");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("wrong password");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page.getByTestId("login-error")).toHaveText("Invalid email or password.");
    await expect(page.getByLabel("Email")).toHaveValue(email);
    await staticScreenshots(page, "login-error-nojs");

    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
  });

  test("forgot and reset password work without JavaScript too", async ({ page, browser }) => {
    // Made over the API: the test above signs up without JavaScript.
    const { email } = await createAccount("nojs-reset", { paid: false });
    await page.setExtraHTTPHeaders({ "x-forwarded-for": randomIp() });

    await page.goto("/forgot-password");
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Send the link" }).click();
    await expect(page.getByTestId("reset-requested")).toBeVisible();

    // The outbox page is read with a script-enabled browser; the reset itself runs without one.
    const reader = await browser.newPage({ baseURL: BASE });
    const link = await linkFromOutbox(reader, email, /Reset your Routekit password/, "/reset-password");
    await reader.close();
    await page.goto(link);
    await page.getByLabel("New password").fill("the new password");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await expect(page).toHaveURL(/\/login\?notice=password-reset/);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("the new password");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
  });
});
