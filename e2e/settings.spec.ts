import { expect, test } from "@playwright/test";
import { linkFromOutbox } from "../tests/support/outbox";
import { createAccount, signedIn } from "../tests/support/accounts";
import { screenshots, signUp } from "../tests/support/helpers";

const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

test("the banner asks to confirm the address until the mailed link is confirmed", async ({ page }) => {
  // Accounts here are made over the API and signed in over HTTP: the subject is Settings, not signing up.
  const account = await createAccount("verify", { paid: false });
  const { email } = account;
  await signedIn(page, account);
  await page.goto("/dashboard");
  await expect(page.getByTestId("unverified-banner")).toContainText(email);
  // The banner is in the server's HTML: there on arrival, before any script runs.
  const html = await (await page.request.get("/dashboard/numbers")).text();
  expect(html).toContain('data-testid="unverified-banner"');
  // The sign-up's own mail is written first (mail goes out from a job): the resent link, which replaces its
  // token, is then the newer of the two in the outbox, whatever the job queue's timing.
  const outbox = await page.context().newPage();
  await linkFromOutbox(outbox, email, /Confirm your email address/, "/verify-email");
  await page.getByRole("button", { name: "Resend the link" }).click();
  await expect(page.getByTestId("unverified-banner")).toContainText("A new link is on its way");
  await screenshots(page, "unverified-banner");

  const link = await linkFromOutbox(outbox, email, /Confirm your email address/, "/verify-email", { count: 2 });
  await outbox.close();
  await page.goto(link);
  await screenshots(page, "verify-email");
  await page.getByRole("button", { name: "Confirm my address" }).click();
  await expect(page.getByTestId("link-done")).toContainText("confirmed");
  await page.goto("/dashboard");
  await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
  await expect(page.getByTestId("unverified-banner")).toHaveCount(0);
});

test("change password: a wrong current one is refused; the right one keeps this browser in and signs out others", async ({
  page,
  browser,
}) => {
  const account = await createAccount("settings", { paid: false });
  await signedIn(page, account);
  // A second browser signed in to the same account, with a session of its own.
  const other = await browser.newContext({ baseURL: BASE });
  const otherPage = await other.newPage();
  await signedIn(otherPage, account);
  await otherPage.goto("/dashboard");
  await expect(otherPage).toHaveURL(/\/dashboard$/);

  await page.goto("/dashboard");
  await page.getByRole("link", { name: "Settings" }).first().click();
  await expect(page).toHaveURL(/\/dashboard\/settings$/);
  const password = page.getByTestId("settings-password");
  await password.getByLabel("Current password").fill("not my password");
  await password.getByLabel("New password").fill("a better password");
  await password.getByRole("button", { name: "Change password" }).click();
  await expect(password.getByText("Current password is not your current password")).toBeVisible();
  await screenshots(page, "settings");

  await password.getByLabel("Current password").fill("correct horse battery");
  await password.getByLabel("New password").fill("a better password");
  await password.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("Password changed. Every other session has been signed out.")).toBeVisible();
  await page.reload();
  await expect(page).toHaveURL(/\/dashboard\/settings$/);

  await otherPage.goto("/dashboard/keys");
  await expect(otherPage).toHaveURL(/\/login/);
  await other.close();
});

test("sign out everywhere asks first, ends this session, and says what it did", async ({ page }) => {
  await signedIn(page, await createAccount("signout", { paid: false }));
  await page.goto("/dashboard/settings");
  await page.getByRole("button", { name: "Sign out everywhere" }).click();
  // Nothing happens before the confirmation: cancelling keeps the session.
  const dialog = page.getByRole("dialog", { name: "Sign out everywhere?" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await page.reload();
  await expect(page).toHaveURL(/\/dashboard\/settings$/);
  await page.getByRole("button", { name: "Sign out everywhere" }).click();
  await page
    .getByRole("dialog", { name: "Sign out everywhere?" })
    .getByRole("button", { name: "Sign out everywhere" })
    .click();
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByTestId("login-notice")).toContainText("signed out everywhere");
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/login/);
});

test("close the account: confirmed by address and password, then the address is free again", async ({
  page,
  context,
}) => {
  const account = await createAccount("close", { paid: false });
  const { email } = account;
  await signedIn(page, account);
  await page.goto("/dashboard/settings");
  const danger = page.getByTestId("settings-delete");
  await danger.getByLabel("Type the account's email address to confirm").fill("someone-else@example.com");
  await danger.getByLabel("Password").fill("correct horse battery");
  await danger.getByRole("button", { name: "Close my account for good" }).click();
  await expect(danger.getByText("Email does not match the account's email address")).toBeVisible();

  await danger.getByLabel("Type the account's email address to confirm").fill(email);
  await danger.getByRole("button", { name: "Close my account for good" }).click();
  await expect(page).toHaveURL(/\/login\?notice=deleted/);
  await expect(page.getByTestId("login-notice")).toContainText("Your account is closed.");
  await screenshots(page, "account-closed");

  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct horse battery");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByTestId("login-error")).toHaveText("Invalid email or password.");

  await context.clearCookies();
  await signUp(page, email, "a new owner's password");
});
