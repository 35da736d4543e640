import { expect, test } from "@playwright/test";
import { startReceiver } from "../tests/support/receiver";
import { api, createAccount, signedIn } from "../tests/support/accounts";
import { screenshots } from "../tests/support/helpers";

// Alerts in the dashboard (docs/decisions.md §16): an endpoint that keeps failing its test events raises
// alert.endpoint_failing within a minute (the server's own scan), listed on the Alerts page with what to do
// and counted in the nav; its email can be switched off in Settings.
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

test("create an endpoint, send it test events that fail, see the alert and the badge", async ({ page }) => {
  test.setTimeout(150_000);
  const backend = await startReceiver((_r, res) => res.writeHead(503).end("down for maintenance"));
  try {
    const account = await createAccount("alerts", { paid: true });
    await signedIn(page, account);
    await page.goto("/dashboard");

    await test.step("no alerts yet: the page says so and the nav shows no count", async () => {
      await page.getByRole("link", { name: "Alerts" }).first().click();
      await expect(page).toHaveURL(/\/dashboard\/alerts$/);
      await expect(page.getByTestId("alerts-empty")).toBeVisible();
      await expect(page.getByTestId("alert-count")).toHaveCount(0);
    });

    await test.step("add an endpoint whose server is down and send it three test events", async () => {
      await page.goto("/dashboard/endpoints");
      await page.getByLabel("URL", { exact: true }).fill(backend.url("/down"));
      await page.getByTestId("endpoint-types").getByLabel("call.ended").check();
      await page.getByRole("button", { name: "Add endpoint" }).click();
      await page.getByRole("button", { name: "Done" }).click();
      const row = page.getByTestId("endpoint-row");
      await row.getByRole("button", { name: "Send test event" }).click();
      const panel = page.getByTestId("endpoint-test-panel");
      await panel.getByLabel("Event type").selectOption("call.ended");
      for (let i = 0; i < 3; i++) {
        await panel.getByRole("button", { name: "Send" }).click();
        await expect(page.getByTestId("endpoint-test-status")).toContainText("HTTP 503");
        await expect.poll(() => backend.received.length).toBe(i + 1);
      }
    });

    await test.step("within a minute the alert is listed with what to do, and counted in the nav", async () => {
      // The server's scan (every 15 s) raises it: ask the API often, cheaply, rather than reloading the page until it shows.
      await expect
        .poll(async () => (await api(account.apiKey, "/api/alerts")).alerts.length, { timeout: 75_000 })
        .toBeGreaterThan(0);
      await page.goto("/dashboard/alerts");
      await expect(page.getByTestId("alert-item")).toHaveCount(1);
      const item = page.getByTestId("alert-item");
      await expect(item).toContainText("alert.endpoint_failing");
      await expect(item).toContainText(backend.url("/down"));
      await expect(item.getByTestId("alert-how-to-fix")).toContainText("answers 2xx");
      await expect(page.getByTestId("alert-count")).toHaveText(/^1 in the last 24 hours$/);
      await screenshots(page, "alerts");
    });

    await test.step("Settings switches a kind's email off, and it stays off", async () => {
      await page.goto("/dashboard/settings");
      const panel = page.getByTestId("settings-alert-emails");
      const box = panel.getByRole("checkbox", { name: /alert\.delivery_exhausted/ });
      await expect(box).toBeChecked();
      // Not uncheck(): that reads the box straight after the click, before the query cache (which owns the box's
      // state, and tells React a tick later) has re-rendered it, and fails though the box then goes off.
      await box.click();
      await expect(box).not.toBeChecked();
      await expect(page.getByText("Alert emails saved")).toBeVisible();
      await page.reload();
      await expect(
        page.getByTestId("settings-alert-emails").getByRole("checkbox", { name: /alert\.delivery_exhausted/ }),
      ).not.toBeChecked();
    });
  } finally {
    await backend.close();
  }
});
