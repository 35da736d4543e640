import { expect, test, type Page } from "@playwright/test";
import { startTwilioSimulator, type TwilioSimulator } from "../src/twilio-simulator/twilio-simulator";
import { startReceiver } from "../tests/support/receiver";
import { createAccount, signedIn } from "../tests/support/accounts";
import { screenshots, uniqueNumber } from "../tests/support/helpers";

// docs/decisions.md §21 in the dashboard: "Simulate a call" on a number shows the TwiML Twilio would get;
// the Overview's set-up checklist follows the account's real state step by step and goes once all is done;
// the Setup guide's simulator command carries --account/--token once Twilio is connected (never the token).
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

const HELLO = "<Response><Say>Hello from the simulated call</Say></Response>";

let twilio: TwilioSimulator;
test.beforeAll(async () => {
  twilio = await startTwilioSimulator({ accounts: {}, port: Number(process.env.E2E_TWILIO_PORT), host: "127.0.0.1" });
});
test.afterAll(async () => {
  await twilio?.close();
});

/** The overview's set-up checklist, loaded afresh: each of these steps done or not (one load for them all). */
async function checklistSteps(page: Page, steps: Record<string, boolean>) {
  await page.goto("/dashboard");
  for (const [key, done] of Object.entries(steps))
    await expect(page.getByTestId(`checklist-${key}`)).toHaveAttribute("data-done", done ? "true" : "false");
}

test("simulate a call from a number's page, and watch the set-up checklist advance to its end", async ({ page }) => {
  const backend = await startReceiver((r, res) => {
    if (r.path === "/start") return res.writeHead(200, { "content-type": "text/xml" }).end(HELLO);
    return res.writeHead(200).end("signature verified");
  });
  const tw = twilio.addAccount({ friendlyName: "Checklist Voice" });
  const phoneNumber = uniqueNumber();
  twilio.addIncomingNumber(tw.sid, phoneNumber);

  try {
    await test.step("a new account: nothing done, each step links to where it is done", async () => {
      // Made over the API (signing up is dashboard.spec's subject); the rest is done in the dashboard.
      await signedIn(page, await createAccount("simulate", { paid: false }));
      await page.goto("/dashboard");
      await expect(page.getByTestId("setup-checklist")).toBeVisible();
      for (const key of ["paid", "twilio", "number", "simulated", "signatures"])
        await expect(page.getByTestId(`checklist-${key}`)).toHaveAttribute("data-done", "false");
      await expect(page.getByTestId("checklist-paid").getByRole("link", { name: "Go to billing" })).toHaveAttribute(
        "href",
        "/dashboard/billing",
      );
    });

    await test.step("pay: the first step is done", async () => {
      await page.getByRole("button", { name: "Go to checkout" }).click();
      const done = page.getByTestId("checkout-result");
      const payButton = page.getByRole("button", { name: /^Pay/ });
      await expect(done.or(payButton)).toBeVisible();
      if (await payButton.isVisible()) await payButton.click();
      await checklistSteps(page, { paid: true, number: false });
      await expect(page.getByTestId("overview-status")).toHaveText("Active");
    });

    await test.step("without a number the Setup guide says to add one; its command has no --token", async () => {
      await page.goto("/dashboard/setup");
      await expect(page.getByTestId("setup-simulate-needs-number")).toBeVisible();
      await expect(page.getByTestId("simulator-command")).not.toContainText("--token");
    });

    await test.step("add a number: press Simulate a call and see the TwiML", async () => {
      await page.goto("/dashboard/numbers");
      await page.getByLabel("Phone number").fill(phoneNumber);
      await page.getByLabel("Call start URL").fill(backend.url("/start"));
      await page.getByLabel("Call end URL").fill(backend.url("/end"));
      await page.getByRole("button", { name: "Add number" }).click();
      const row = page.getByTestId("number-row");
      await expect(row).toHaveCount(1);

      await row.getByRole("button", { name: "Simulate a call" }).click();
      const panel = page.getByTestId("simulate-call-panel");
      await expect(panel).toBeInViewport();
      await panel.getByRole("button", { name: "Start the simulated call" }).click();
      await expect(page.getByTestId("simulate-call-result")).toContainText("Your backend answered the call");
      await expect(page.getByTestId("simulate-call-twiml")).toContainText("Hello from the simulated call");
      await expect(page.getByTestId("simulate-call-answer")).toContainText("xml");
      await expect(page.getByTestId("simulate-call-timeline")).toContainText("call.started (primary)");
      await screenshots(page, "numbers-simulate-call");
      // The backend got the event, marked as a test.
      const started = backend.received.find((r) => r.path === "/start");
      expect(JSON.parse(started!.body)).toMatchObject({ type: "call.started", data: { test: true } });
      await checklistSteps(page, { number: true, simulated: true });
    });

    await test.step("a test event answered 2xx: signatures verified", async () => {
      await page.goto("/dashboard/numbers");
      await page.getByTestId("number-row").getByRole("button", { name: "Send test event" }).click();
      await page.getByTestId("test-event-panel").getByRole("button", { name: "Send" }).click();
      await expect(page.getByTestId("test-event-status")).toHaveText("HTTP 200");
      await checklistSteps(page, { signatures: true, twilio: false });
    });

    await test.step("connect Twilio: the checklist is done and goes; the command asks for the token", async () => {
      await page.goto("/dashboard/twilio");
      await page.getByLabel("Account SID").fill(tw.sid);
      await page.getByLabel("Auth token").fill(tw.authToken);
      await page.getByRole("button", { name: "Connect Twilio" }).click();
      await expect(page.getByTestId("twilio-account-sid")).toHaveText(tw.sid);

      await page.goto("/dashboard");
      await expect(page.getByTestId("overview-status")).toHaveText("Active");
      await expect(page.getByTestId("stat-calls")).toBeVisible();
      await expect(page.getByTestId("setup-checklist")).toHaveCount(0);

      await page.goto("/dashboard/setup");
      const command = page.getByTestId("simulator-command");
      await expect(command).toContainText(`--to ${phoneNumber}`);
      await expect(command).toContainText(`--account ${tw.sid} --token '<your Twilio auth token>'`);
      await expect(command).not.toContainText(tw.authToken);
      await expect(page.getByTestId("simulator-token-hint")).toContainText("Account info");
      // The Setup guide's own button simulates too.
      await page.getByTestId("simulate-call-run").click();
      await expect(page.getByTestId("simulate-call-twiml")).toContainText("Hello from the simulated call");
    });

    await test.step("simulated calls stay out of the call log and of billed calls", async () => {
      await page.goto("/dashboard/calls");
      await expect(page.getByTestId("calls-empty")).toBeVisible();
    });
  } finally {
    await backend.close();
  }
});
