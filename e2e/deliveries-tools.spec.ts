import { expect, test } from "@playwright/test";
import { startReceiver } from "../tests/support/receiver";
import { api, createAccount, signedIn } from "../tests/support/accounts";
import { screenshots, uniqueNumber } from "../tests/support/helpers";

// The delivery tools in the dashboard: a test event from a number (docs/decisions.md §8), and replaying
// what failed once the endpoint is fixed, against a local customer backend that counts arrivals.
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

test("send a test event from a number, then replay the failed ones once the endpoint is fixed", async ({ page }) => {
  const backend = await startReceiver();
  let endFails = false;
  backend.answer((req, res) => {
    if (req.path === "/tools-end")
      return endFails ? res.writeHead(503).end("down for maintenance") : res.writeHead(200).end("signature verified");
    return res.writeHead(200).end("ok");
  });
  const ended = () => backend.received.filter((r) => r.path === "/tools-end");

  try {
    await test.step("a paid account with a number without an error URL (made over the API)", async () => {
      const account = await createAccount("tools", { paid: true });
      await api(account.apiKey, "/api/phone-numbers", {
        method: "POST",
        body: {
          phoneNumber: uniqueNumber(),
          onCallStartUrl: backend.url("/tools-start"),
          onCallEndUrl: backend.url("/tools-end"),
        },
      });
      await signedIn(page, account);
      await page.goto("/dashboard");
      await expect(page.getByTestId("overview-status")).toHaveText("Active");
      await page.goto("/dashboard/numbers");
      await expect(page.getByTestId("number-row")).toHaveCount(1);
    });

    await test.step("send a call.ended test event and read the endpoint's answer", async () => {
      const row = page.getByTestId("number-row");
      await row.getByRole("button", { name: "Send test event" }).click();
      const panel = page.getByTestId("test-event-panel");
      // It opens in view, not below the fold.
      await expect(panel).toBeInViewport();
      await expect(panel.getByRole("option", { name: "call.error (no URL)" })).toBeDisabled();
      await panel.getByLabel("Event type").selectOption("call.ended");
      await panel.getByRole("button", { name: "Send" }).click();
      const result = page.getByTestId("test-event-result");
      await expect(result).toContainText("Your endpoint accepted the test event");
      await expect(result).toBeInViewport();
      await expect(page.getByTestId("test-event-status")).toHaveText("HTTP 200");
      await expect(page.getByTestId("test-event-latency")).toHaveText(/^\d+ ms$/);
      await expect(page.getByTestId("test-event-excerpt")).toHaveText("signature verified");
      expect(ended()).toHaveLength(1);
      const sent = JSON.parse(ended()[0]!.body);
      expect(sent).toMatchObject({ type: "call.ended", data: { test: true, callSid: `CA${"0".repeat(32)}` } });
      expect(ended()[0]!.headers["webhook-signature"]).toMatch(/^v1,/);
      await screenshots(page, "numbers-test-event");

      // The endpoint goes down: the next test event shows the failure, and is not retried.
      endFails = true;
      await panel.getByRole("button", { name: "Send" }).click();
      await expect(result).toContainText("Your endpoint did not accept the test event");
      await expect(page.getByTestId("test-event-status")).toHaveText("HTTP 503");
      await expect(page.getByTestId("test-event-excerpt")).toHaveText("down for maintenance");
      expect(ended()).toHaveLength(2);
    });

    await test.step("the endpoint is fixed: replay the failed deliveries of the last hour", async () => {
      endFails = false;
      await page.goto("/dashboard/deliveries");
      await expect(page.locator('[data-testid="delivery-row"][data-status="FAILED"]')).toHaveCount(1);
      const replay = page.getByTestId("replay-failed");
      await replay.getByLabel("Failed since").selectOption({ label: "the last hour" });
      await replay.getByRole("button", { name: "Replay failed…" }).click();
      const dialog = page.getByRole("dialog", { name: "Replay failed deliveries" });
      await expect(dialog).toContainText("created in the last hour");
      await screenshots(page, "deliveries-replay-confirm");
      await dialog.getByRole("button", { name: "Replay" }).click();
      await expect(page.getByTestId("replay-result")).toHaveText("1 delivery queued again.");
      await expect.poll(() => ended().length).toBe(3);
      // The failed one is delivered now (the log refreshes while deliveries are due).
      await expect(page.locator('[data-testid="delivery-row"][data-status="FAILED"]')).toHaveCount(0);
      await expect(page.locator('[data-testid="delivery-row"][data-status="DELIVERED"]')).toHaveCount(2);
      await screenshots(page, "deliveries-replay");

      // A second replay within the minute is refused (once a minute per account, docs/decisions.md §20) and sends nothing.
      await replay.getByRole("button", { name: "Replay failed…" }).click();
      await dialog.getByRole("button", { name: "Replay" }).click();
      await expect(page.getByTestId("replay-error")).toBeVisible();
      expect(ended()).toHaveLength(3);
    });
  } finally {
    await backend.close();
  }
});
