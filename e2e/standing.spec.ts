import { expect, test, type Page } from "@playwright/test";
import { api, createAccount, signedIn } from "../tests/support/accounts";
import { screenshots, uniqueNumber } from "../tests/support/helpers";

// issue 17 and docs/decisions.md §4: what the account's standing forbids is disabled, with the reason beside it.
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

const addButton = (page: Page) => page.getByTestId("number-form").getByRole("button", { name: "Add number" });

test("an unpaid account cannot register a number: the form is disabled and says why; keys still work", async ({
  page,
}) => {
  const account = await createAccount("unpaid", { paid: false });
  await signedIn(page, account);
  await page.goto("/dashboard/numbers");
  await expect(page.getByTestId("numbers-status-notice")).toContainText("not active yet");
  await expect(addButton(page)).toBeDisabled();
  await expect(page.getByLabel("Phone number")).toBeDisabled();
  const reason = page.getByTestId("number-form").getByTestId("forbidden-reason");
  await expect(reason).toHaveText("Your account is not active yet: complete checkout first.");
  await expect(addButton(page)).toHaveAttribute("aria-describedby", (await reason.getAttribute("id"))!);
  await screenshots(page, "numbers-unpaid");

  // What the standing allows stays enabled: creating a key.
  await page.goto("/dashboard/keys");
  await page.getByLabel("Label (optional)").fill("unpaid but allowed");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("new-api-key")).toContainText("rtk_");
});

test("cancelling in the local billing portal suspends the account and disables every change to numbers; resuming enables them again", async ({
  page,
}) => {
  const account = await createAccount("suspend", { paid: true });
  const phoneNumber = uniqueNumber();
  await api(account.apiKey, "/api/phone-numbers", {
    method: "POST",
    body: { phoneNumber, onCallStartUrl: "https://example.com/start", onCallEndUrl: "https://example.com/end" },
  });
  await signedIn(page, account);
  const row = page.locator(`[data-testid="number-row"][data-phone-number="${phoneNumber}"]`);

  await test.step("active: everything enabled", async () => {
    await page.goto("/dashboard/numbers");
    await expect(addButton(page)).toBeEnabled();
    await expect(row.getByRole("button", { name: "Edit" })).toBeEnabled();
    await expect(row.getByRole("button", { name: "Simulate a call" })).toBeEnabled();
    await expect(page.getByTestId("forbidden-reason")).toHaveCount(0);
  });

  await test.step("cancel in the portal, after its confirmation", async () => {
    await page.goto("/dashboard/billing");
    await page.getByTestId("open-portal").click();
    await expect(page).toHaveURL(/\/billing\/portal\//);
    await expect(page.getByTestId("account-status")).toHaveText("Active");
    await page.getByTestId("cancel").click();
    // The confirmation page changes nothing until its button is pressed.
    await expect(page.getByTestId("billing-result")).toContainText("Cancel the subscription");
    await page.getByTestId("confirm-cancel").click();
    await expect(page).toHaveURL(/\/dashboard/);
    await page.goto("/dashboard/billing");
    await expect(page.getByTestId("billing-status")).toHaveText("Suspended");
    await expect(page.getByTestId("status-cta")).toContainText("suspended");
  });

  await test.step("suspended: adding, editing and deleting numbers are disabled, each with the reason", async () => {
    await page.goto("/dashboard/numbers");
    await expect(addButton(page)).toBeDisabled();
    await expect(row.getByRole("button", { name: "Edit" })).toBeDisabled();
    await expect(row.getByRole("button", { name: "Delete" })).toBeDisabled();
    // Simulating a call needs a paid account (docs/decisions.md §21): the same reason, said once.
    await expect(row.getByRole("button", { name: "Simulate a call" })).toBeDisabled();
    await expect(page.getByTestId("forbidden-reason").first()).toHaveText(
      "Your account is suspended: resume your plan in billing first.",
    );
    await expect(page.getByTestId("forbidden-reason")).toHaveCount(2);
    // Reading and testing still work while the customer sorts out payment.
    await expect(row.getByRole("button", { name: "Send test event" })).toBeEnabled();
    await screenshots(page, "numbers-suspended");
    // The API agrees with what the page shows.
    const res = await fetch(`${BASE}/api/phone-numbers`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        phoneNumber: uniqueNumber(),
        onCallStartUrl: "https://example.com/s",
        onCallEndUrl: "https://example.com/e",
      }),
    });
    expect(res.status).toBe(403);
  });

  await test.step("resume in the portal: enabled again", async () => {
    await page.goto("/dashboard/billing");
    await page.getByTestId("open-portal").click();
    await expect(page.getByTestId("account-status")).toHaveText("Suspended");
    await page.getByTestId("resume").click();
    await expect(page).toHaveURL(/\/dashboard/);
    await page.goto("/dashboard/numbers");
    await expect(addButton(page)).toBeEnabled();
    await expect(row.getByRole("button", { name: "Delete" })).toBeEnabled();
    await expect(page.getByTestId("forbidden-reason")).toHaveCount(0);
  });
});
