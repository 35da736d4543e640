import { randomInt } from "node:crypto";
import { expect, test } from "@playwright/test";
import { api, createAccount, signedIn } from "../tests/support/accounts";
import { expectNoOverflow } from "../tests/support/page-checks";

// The Audit log page (docs/decisions.md §18): changes made through the API and in the dashboard are listed
// newest first with who made them; the filters live in the URL, so a refresh and Back keep them.
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

test("changes are listed with who made them, filtered by what and who, at phone width too", async ({ page }) => {
  test.setTimeout(90_000);
  const account = await createAccount("audit", { paid: true });
  const number = await api(account.apiKey, "/api/phone-numbers", {
    method: "POST",
    body: {
      phoneNumber: `+1${randomInt(200, 1000)}${randomInt(200, 1000)}${String(randomInt(0, 10_000)).padStart(4, "0")}`,
      onCallStartUrl: "https://api.example.com/start",
      onCallEndUrl: "https://api.example.com/end",
    },
  });
  await api(account.apiKey, "/api/account/limits", { method: "PUT", body: { monthlyBudget: 100 } });
  await signedIn(page, account);
  await page.goto("/dashboard");

  await test.step("the nav leads to the page; the newest change comes first", async () => {
    await page.getByRole("link", { name: "Audit log" }).first().click();
    await expect(page).toHaveURL(/\/dashboard\/audit$/);
    const rows = page.getByTestId("audit-row");
    await expect(rows).toHaveCount(2);
    await expect(rows.first()).toContainText("account.limits_changed");
    await expect(rows.nth(1)).toContainText("phone_number.created");
    await expect(rows.nth(1)).toContainText(number.phoneNumber.id);
    await expect(rows.first()).toContainText(`API key ${account.apiKey.slice(0, 12)}`);
  });

  await test.step("a filter by what is kept in the URL through a refresh and Back", async () => {
    await page.getByTestId("audit-filter-action").selectOption("phone_number.created");
    await expect(page).toHaveURL(/action=phone_number.created/);
    await expect(page.getByTestId("audit-row")).toHaveCount(1);
    await page.reload();
    await expect(page.getByTestId("audit-row")).toHaveCount(1);
    await page.goBack();
    await expect(page.getByTestId("audit-row")).toHaveCount(2);
  });

  await test.step("a filter by who, and one that matches nothing", async () => {
    await page.getByTestId("audit-filter-actor").fill(account.apiKey.slice(0, 12));
    await page.getByTestId("audit-filter-apply").click();
    await expect(page.getByTestId("audit-row")).toHaveCount(2);
    await page.getByTestId("audit-filter-actor").fill("rtk_nobody000");
    await page.getByTestId("audit-filter-apply").click();
    await expect(page.getByTestId("audit-empty")).toBeVisible();
    await page.getByTestId("audit-filter-clear").click();
    await expect(page.getByTestId("audit-row")).toHaveCount(2);
  });

  await test.step("at a phone's width each entry is a card, nothing scrolls sideways", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByTestId("audit-row").first()).toBeVisible();
    await expectNoOverflow(page, "the audit log at 390 px");
  });
});
