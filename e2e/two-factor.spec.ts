import { expect, test } from "@playwright/test";
import { generateSync } from "otplib";
import { createAccount, signedIn } from "../tests/support/accounts";
import { randomIp, screenshots } from "../tests/support/helpers";

const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

/** The password every account of tests/support/accounts.ts is made with. */
const PASSWORD = "correct horse battery";

/** The code an authenticator app would show now, `steps` periods later (each code signs in once). */
const codeOf = (secret: string, steps = 0) =>
  generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

test("enable two-factor in the dashboard, sign out, sign in with a code", async ({ page }) => {
  const account = await createAccount("two-factor", { paid: false });
  await signedIn(page, account);

  await page.goto("/dashboard");
  await page.getByRole("link", { name: "Security" }).first().click();
  await expect(page).toHaveURL(/\/dashboard\/security$/);
  await expect(page.getByTestId("two-factor-off")).toBeVisible();
  await page.getByTestId("two-factor-begin").click();
  const secret = (await page.getByTestId("two-factor-secret").textContent())!.trim();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await expect(page.getByTestId("two-factor-otpauth-url")).toContainText("otpauth://totp/");
  await screenshots(page, "two-factor-secret");

  // A wrong code is refused under the field, and two-factor stays off.
  const window = new Set([-1, 0, 1].map((s) => codeOf(secret, s)));
  await page.getByLabel("Code from the app").fill(["000000", "111111", "222222"].find((c) => !window.has(c))!);
  await page.getByTestId("two-factor-confirm").click();
  await expect(page.getByText("does not match the secret")).toBeVisible();

  await page.getByLabel("Code from the app").fill(codeOf(secret));
  await page.getByTestId("two-factor-confirm").click();
  const codes = page.getByTestId("recovery-codes").getByRole("listitem");
  await expect(codes).toHaveCount(10);
  const recoveryCode = (await codes.first().textContent())!.trim();
  await screenshots(page, "two-factor-recovery-codes");
  await page.getByTestId("recovery-codes-done").click();
  await expect(page.getByTestId("two-factor-on")).toContainText("10 of 10 recovery codes left");
  // The codes were shown once: coming back shows only how many are left.
  await page.reload();
  await expect(page.getByTestId("two-factor-on")).toBeVisible();
  await expect(page.getByTestId("recovery-codes")).toHaveCount(0);

  await page.getByRole("button", { name: "Log out" }).first().click();
  await expect(page).toHaveURL(/\/login\?notice=signed-out/);

  // The password alone is not enough: the form asks for the code and keeps what was typed.
  await page.setExtraHTTPHeaders({ "x-forwarded-for": randomIp() });
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByTestId("login-error")).toContainText("authenticator app");
  await expect(page.getByLabel("Email")).toHaveValue(account.email);
  await screenshots(page, "login-two-factor");
  // The confirming code is spent; the next step's code signs in (the server accepts one step ahead).
  await page.getByLabel("Two-factor code").fill(codeOf(secret, 1));
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  // A recovery code signs in too, once.
  await page.getByRole("button", { name: "Log out" }).first().click();
  await expect(page).toHaveURL(/\/login\?notice=signed-out/);
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByLabel("Two-factor code").fill(recoveryCode);
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/dashboard/security");
  await expect(page.getByTestId("two-factor-on")).toContainText("9 of 10 recovery codes left");
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the log-in form asks for the code, keeps the email, and never puts the password in the URL", async ({
    page,
  }) => {
    const account = await createAccount("two-factor-nojs", { paid: false });
    // Two-factor turned on over the API, as a person would in the dashboard.
    const http = page.request;
    const from = { "x-forwarded-for": randomIp() };
    const login = await http.post("/api/auth/login", {
      headers: from,
      data: { email: account.email, password: PASSWORD },
    });
    const { token } = (await login.json()) as { token: string };
    const auth = { ...from, authorization: `Bearer ${token}` };
    const begun = (await (await http.post("/api/auth/two-factor", { headers: auth })).json()) as { secret: string };
    const confirmed = await http.post("/api/auth/two-factor/confirm", {
      headers: auth,
      data: { code: codeOf(begun.secret) },
    });
    expect(confirmed.status()).toBe(200);

    await page.setExtraHTTPHeaders({ "x-forwarded-for": randomIp() });
    await page.goto("/login");
    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page).toHaveURL(/\/login\?.*twoFactor=1/);
    expect(page.url()).not.toContain(encodeURIComponent(PASSWORD));
    expect(page.url()).not.toContain("password=");
    await expect(page.getByLabel("Email")).toHaveValue(account.email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Two-factor code").fill(codeOf(begun.secret, 1));
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
  });
});
