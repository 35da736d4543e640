import { expect, test } from "@playwright/test";
import { newCallSid, postSigned } from "../src/twilio-simulator/twilio-simulator";
import { startReceiver } from "../tests/support/receiver";
import { api, createAccount, expectWithinViewport, signedIn } from "../tests/support/accounts";
import { screenshots, uniqueNumber } from "../tests/support/helpers";

const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Hello</Say></Response>';

/** One 60-second inbound call through the engine: 1 billed minute, $0.02 at the default rate. */
async function oneMinuteCall(engineUrl: string, to: string): Promise<void> {
  const CallSid = newCallSid();
  const base = { CallSid, AccountSid: `AC${"5".repeat(32)}`, From: "+14155550100", To: to, Direction: "inbound" };
  const voice = await postSigned(engineUrl, { ...base, CallStatus: "ringing" }, "unsigned");
  expect(voice.body).toContain("<Say>");
  const end = await postSigned(engineUrl, { ...base, CallStatus: "completed", CallDuration: "60" }, "unsigned");
  expect(end.status).toBe(200);
}

// docs/decisions.md §17: the billing page's spend bar, thresholds and limits form; the overview's 80 % warning;
// a number's daily cap and today's minutes.
test("set a budget, see the bar move after a call, the overview warn at 80 %, a number's daily cap", async ({
  page,
}) => {
  const backend = await startReceiver((r, res) =>
    r.path.endsWith("/start") ? res.writeHead(200, { "content-type": "text/xml" }).end(XML) : res.end("ok"),
  );
  try {
    const account = await createAccount("limits", { paid: true });
    const number = uniqueNumber();
    await api(account.apiKey, "/api/phone-numbers", {
      method: "POST",
      body: {
        phoneNumber: number,
        onCallStartUrl: backend.url("/start"),
        onCallEndUrl: backend.url("/end"),
        dailyMinuteCap: 5,
      },
    });
    await signedIn(page, account);

    await page.goto("/dashboard/billing");
    const panel = page.getByTestId("spend-limits");
    await expect(panel.getByTestId("spend-no-budget")).toBeVisible();
    // A bad value is refused in the browser, naming the field, by the API's own rule.
    await panel.getByLabel("Monthly budget (USD)").fill("0.051");
    await panel.getByRole("button", { name: "Save limits" }).click();
    await expect(panel.getByText(/Monthly budget must have at most 2 decimal places/)).toBeVisible();
    await panel.getByLabel("Monthly budget (USD)").fill("0.05");
    await panel.getByLabel("Alert thresholds (%)").fill("40, 80, 100");
    await panel.getByRole("button", { name: "Save limits" }).click();
    await expect(page.getByText("Limits saved")).toBeVisible();
    const bar = panel.getByTestId("spend-bar");
    await expect(bar).toHaveAttribute("data-percent", "0");
    await expect(panel.getByTestId("spend-threshold-mark")).toHaveCount(3);
    await expect(page.getByRole("meter", { name: "Usage cost this month against the budget" })).toBeAttached();

    // One call of a minute: $0.02 of $0.05 is 40 %; the bar moves and the 40 % mark reads reached.
    await oneMinuteCall(account.engineVoiceUrl, number);
    await expect
      .poll(async () => (await api(account.apiKey, "/api/account/limits")).current.spent, { timeout: 15_000 })
      .toBe(0.02);
    await page.reload();
    await expect(bar).toHaveAttribute("data-percent", "40");
    await expect(panel.getByTestId("spend-summary")).toContainText("$0.02 of $0.05");
    await expect(panel.getByTestId("spend-threshold").first()).toHaveAttribute("data-reached", "true");
    await expect(page.getByLabel("Monthly budget (USD)")).toHaveValue("0.05");

    // The overview is quiet at 40 % and warns from 80 %.
    await page.goto("/dashboard");
    await expect(page.getByTestId("stat-calls")).toBeVisible();
    await expect(page.getByTestId("budget-warning")).toHaveCount(0);
    await oneMinuteCall(account.engineVoiceUrl, number);
    await expect
      .poll(async () => (await api(account.apiKey, "/api/account/limits")).current.spent, { timeout: 15_000 })
      .toBe(0.04);
    await page.reload();
    await expect(page.getByTestId("budget-warning")).toContainText("(80 %)");

    // The number shows its daily cap and today's minutes.
    await page.goto("/dashboard/numbers");
    await expect(page.getByTestId("number-daily-cap")).toHaveText("2 of 5 billed min today (UTC)");

    // At a phone's width nothing sticks out sideways, and the bar and the form stay on screen.
    await page.goto("/dashboard/billing");
    await screenshots(page, "billing-limits");
    await expectWithinViewport(page, page.getByTestId("spend-bar"), "the spend bar");
    await expectWithinViewport(page, page.getByRole("button", { name: "Save limits" }), "the save button");
  } finally {
    await backend.close();
  }
});
