import { expect, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { eventContractViolations, startReceiver } from "../tests/support/receiver";
import { createAccount, signedIn } from "../tests/support/accounts";
import { screenshots } from "../tests/support/helpers";

// Webhook endpoints in the dashboard (docs/decisions.md §15): add one with the type picker, read its secret,
// send it a test event that a local receiver verifies, and find that delivery in the log by its destination.
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

test("create an endpoint, send it a test event, see the delivery", async ({ page }) => {
  const backend = await startReceiver((_r, res) => res.writeHead(200).end("verified"));
  const got = () => backend.received.filter((r) => r.path === "/pipeline");
  try {
    await signedIn(page, await createAccount("endpoints", { paid: true }));
    await page.goto("/dashboard");

    await test.step("the nav leads to the Endpoints page; the form refuses no event type", async () => {
      await page.getByRole("link", { name: "Endpoints" }).first().click();
      await expect(page).toHaveURL(/\/dashboard\/endpoints$/);
      await expect(page.getByTestId("endpoints-empty")).toBeVisible();
      await page.getByLabel("URL", { exact: true }).fill(backend.url("/pipeline"));
      await page.getByRole("button", { name: "Add endpoint" }).click();
      await expect(page.getByTestId("endpoint-types").getByRole("alert")).toBeVisible();
    });

    let secret = "";
    await test.step("pick call.ended and call.error, add it, and read its secret once", async () => {
      const types = page.getByTestId("endpoint-types");
      await types.getByLabel("call.ended").check();
      await types.getByLabel("call.error").check();
      await page.getByLabel("Description (optional)").fill("Data pipeline");
      await page.getByRole("button", { name: "Add endpoint" }).click();
      secret = (await page.getByTestId("endpoint-secret").textContent())!.trim();
      expect(secret).toMatch(/^whsec_/);
      const row = page.getByTestId("endpoint-row");
      await expect(row).toHaveCount(1);
      await expect(row.getByTestId("endpoint-types-list")).toHaveText(/call\.ended.*call\.error/);
      await expect(row.getByTestId("endpoint-state")).toHaveText("Enabled");
      await screenshots(page, "endpoints");
      await page.getByRole("button", { name: "Done" }).click();
      await expect(page.getByTestId("endpoint-secret-panel")).toHaveCount(0);
    });

    await test.step("send it a test event: the receiver verifies it with the endpoint's secret", async () => {
      const row = page.getByTestId("endpoint-row");
      await row.getByRole("button", { name: "Send test event" }).click();
      const panel = page.getByTestId("endpoint-test-panel");
      await panel.getByLabel("Event type").selectOption("call.ended");
      await panel.getByRole("button", { name: "Send" }).click();
      await expect(page.getByTestId("endpoint-test-result")).toContainText("Your endpoint accepted the test event");
      // The one test-event panel (numbers use it too): answer, latency and excerpt, in view where the button is.
      await expect(page.getByTestId("endpoint-test-status")).toHaveText("HTTP 200");
      await expect(page.getByTestId("endpoint-test-latency")).toHaveText(/^\d+ ms$/);
      await expect(page.getByTestId("endpoint-test-result")).toBeInViewport();
      await expect(
        page.getByTestId("endpoint-test-result").getByRole("link", { name: "See the delivery" }),
      ).toBeVisible();
      expect(got()).toHaveLength(1);
      const event = new Webhook(secret).verify(got()[0]!.body, got()[0]!.headers as Record<string, string>) as {
        type: string;
        data: { test?: boolean };
      };
      expect(event).toMatchObject({ type: "call.ended", data: { test: true } });
      expect(eventContractViolations).toEqual([]);
    });

    await test.step("that endpoint's deliveries show it as the destination", async () => {
      await page.getByTestId("endpoint-row").getByRole("link", { name: "Deliveries" }).click();
      await expect(page).toHaveURL(/\/dashboard\/deliveries\?endpoint=/);
      await expect(page.getByTestId("deliveries-endpoint-filter")).toBeVisible();
      const row = page.getByTestId("delivery-row");
      await expect(row).toHaveCount(1);
      await expect(row).toHaveAttribute("data-status", "DELIVERED");
      await expect(row.getByTestId("delivery-destination")).toHaveText("Webhook endpoint");
      await row.getByRole("button", { name: "Details" }).click();
      await expect(page.getByTestId("delivery-detail-destination")).toContainText("Webhook endpoint");
      await screenshots(page, "deliveries-endpoint");
    });

    await test.step("disable, rotate with confirmation, and delete with confirmation", async () => {
      await page.goto("/dashboard/endpoints");
      const row = page.getByTestId("endpoint-row");
      await row.getByRole("button", { name: "Disable" }).click();
      await expect(row.getByTestId("endpoint-state")).toHaveText("Disabled");
      await row.getByRole("button", { name: "Rotate secret" }).click();
      await page
        .getByRole("dialog", { name: "Rotate signing secret" })
        .getByRole("button", { name: "Rotate secret" })
        .click();
      const rotated = (await page.getByTestId("endpoint-secret").textContent())!.trim();
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secret);
      await page.getByRole("button", { name: "Done" }).click();
      await row.getByRole("button", { name: "Delete" }).click();
      await page
        .getByRole("dialog", { name: "Delete endpoint" })
        .getByRole("button", { name: "Delete endpoint" })
        .click();
      await expect(page.getByTestId("endpoints-empty")).toBeVisible();
    });
  } finally {
    await backend.close();
  }
});
