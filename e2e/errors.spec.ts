import { expect, test } from "@playwright/test";
import { api, createAccount, signedIn } from "../tests/support/accounts";
import { screenshots, twoFrames, uniqueNumber } from "../tests/support/helpers";

// issue 17: each failure is shown once, in the place its kind calls for (src/client/show-error.ts).
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

test("a validation error shows once, inline under its field: no toast, no banner", async ({ page }) => {
  const account = await createAccount("validation", { paid: true });
  await signedIn(page, account);
  await page.goto("/dashboard/numbers");
  await page.getByLabel("Phone number").fill("+1555");
  await page.getByLabel("Call start URL").fill("ftp://example.com/start");
  await page.getByLabel("Call end URL").fill("https://example.com/end");
  await page.getByRole("button", { name: "Add number" }).click();

  const phoneError = page.getByText("Phone number must be a US number in E.164 format, like +14155550123");
  await expect(phoneError).toHaveCount(1);
  await expect(page.getByLabel("Phone number")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Phone number")).toBeFocused();
  await expect(page.getByText(/^Call start URL /)).toHaveCount(1);
  await expect(page.getByTestId("toast")).toHaveCount(0);
  await expect(page.getByTestId("number-form-error")).toHaveCount(0);
  await screenshots(page, "error-validation");

  // Fixing the field clears its message as you type.
  await page.getByLabel("Phone number").fill(uniqueNumber());
  await expect(phoneError).toHaveCount(0);

  // A key label over the API's limit cannot be typed; the API key form stays quiet.
  await page.goto("/dashboard/keys");
  await page.getByLabel("Label (optional)").fill("x".repeat(120));
  await expect(page.getByLabel("Label (optional)")).toHaveValue("x".repeat(100));
});

test("a failed action shows once: one alert by the form, no toast on top", async ({ page }) => {
  const owner = await createAccount("taken-owner", { paid: true });
  const taken = uniqueNumber();
  await api(owner.apiKey, "/api/phone-numbers", {
    method: "POST",
    body: { phoneNumber: taken, onCallStartUrl: "https://example.com/s", onCallEndUrl: "https://example.com/e" },
  });

  const account = await createAccount("taken", { paid: true });
  await signedIn(page, account);
  await page.goto("/dashboard/numbers");
  await page.getByLabel("Phone number").fill(taken);
  await page.getByLabel("Call start URL").fill("https://example.com/start");
  await page.getByLabel("Call end URL").fill("https://example.com/end");
  await page.getByRole("button", { name: "Add number" }).click();

  const alert = page.getByTestId("number-form-error");
  await expect(alert).toBeVisible();
  await expect(alert).toContainText("The number was not added");
  const message = (await alert.textContent())!.replace("The number was not added", "").trim();
  expect(message.length).toBeGreaterThan(10);
  // The one call that showed the alert (useShowError) would have added a toast in the same state update: once
  // the page has drawn the frames after the alert, a toast would be there. There is none, and the sentence is once.
  await twoFrames(page);
  await expect(page.getByTestId("toast")).toHaveCount(0);
  await expect(page.getByText(message, { exact: true })).toHaveCount(1);
  await screenshots(page, "error-action");

  // A new error replaces the old: a mistyped number's field error does not stand beside the server's alert.
  await page.getByLabel("Phone number").fill("+1555");
  await page.getByRole("button", { name: "Add number" }).click();
  await expect(page.getByText("Phone number must be a US number in E.164 format, like +14155550123")).toBeVisible();
  await expect(alert).toHaveCount(0);
});

test("an action whose session has ended goes to log-in, with no error shown on the way", async ({ page }) => {
  const account = await createAccount("expired", { paid: true });
  await signedIn(page, account);
  await page.goto("/dashboard/keys");
  await expect(page.getByRole("button", { name: "Create key" })).toBeEnabled();
  // The page's own first fetches (the nav's alert count among them) finish first: one still in flight when the
  // session ends would take the tab to log-in by itself, in the middle of the click below (CI saw the click hang).
  await page.waitForLoadState("networkidle");
  // Every session of the account ends (as "log out" elsewhere does); this tab still shows the page.
  await fetch(`${BASE}/api/auth/logout`, {
    method: "POST",
    headers: { authorization: `Bearer ${account.apiKey}` },
  }).then((r) => expect(r.status).toBe(200));
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page).toHaveURL(/\/login\?callbackUrl=%2Fdashboard%2Fkeys$/);
  await expect(page.getByTestId("toast")).toHaveCount(0);
});
