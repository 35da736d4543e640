import { expect, test, type Page } from "@playwright/test";
import { startTwilioSimulator, type TwilioSimulator } from "../src/twilio-simulator/twilio-simulator";
import { startReceiver } from "../tests/support/receiver";
import { createAccount, signedIn } from "../tests/support/accounts";
import { screenshots, uniqueNumber } from "../tests/support/helpers";

// The Twilio page against the built app, whose Twilio (TWILIO_API_BASE_URL) is this file's simulator.
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });
test.describe.configure({ mode: "serial" });

let twilio: TwilioSimulator;
test.beforeAll(async () => {
  twilio = await startTwilioSimulator({ accounts: {}, port: Number(process.env.E2E_TWILIO_PORT), host: "127.0.0.1" });
});
test.afterAll(async () => {
  await twilio?.close();
});

const row = (page: Page, phoneNumber: string) =>
  page.locator(`[data-testid="twilio-number-row"][data-phone-number="${phoneNumber}"]`);

test("connect Twilio, list its numbers, register and configure one in a click, rotate the engine URL, disconnect", async ({
  page,
}) => {
  const backend = await startReceiver((r, res) =>
    r.path === "/start"
      ? res
          .writeHead(200, { "content-type": "text/xml" })
          .end("<Response><Say>Hello from the Twilio page</Say></Response>")
      : res.end("ok"),
  );
  const tw = twilio.addAccount({ friendlyName: "Acme Voice" });
  const numbers = [uniqueNumber(), uniqueNumber(), uniqueNumber()];
  twilio.addIncomingNumber(tw.sid, numbers[0]!, { friendlyName: "Main line" });
  twilio.addIncomingNumber(tw.sid, numbers[1]!, {
    friendlyName: "Support",
    voiceUrl: "https://demo.twilio.com/welcome/voice/",
  });
  twilio.addIncomingNumber(tw.sid, numbers[2]!);
  twilio.addAccount({ parentSid: tw.sid, friendlyName: "EU numbers" });
  let engineUrl = "";

  try {
    await test.step("a paid account, made over the API (signing up and paying are dashboard.spec's subject)", async () => {
      await signedIn(page, await createAccount("twilio", { paid: true }));
      await page.goto("/dashboard");
      await expect(page.getByTestId("overview-status")).toHaveText("Active");
    });

    await test.step("not connected: the engine URL is a bearer secret", async () => {
      await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Twilio" }).click();
      await expect(page).toHaveURL(/\/dashboard\/twilio$/);
      await expect(page.getByTestId("twilio-not-connected")).toContainText("as sensitive as an API key");
      await expect(page.getByTestId("twilio-not-connected")).toContainText("makes forged calls impossible");
      engineUrl = (await page.getByTestId("twilio-engine-url").textContent())!.trim();
      expect(engineUrl).toMatch(/\/api\/engine\/voice\/rt_/);
      await screenshots(page, "twilio-not-connected");
    });

    await test.step("a wrong auth token is refused by Twilio; the right one connects", async () => {
      await page.getByLabel("Account SID").fill("AC123");
      await page.getByRole("button", { name: "Connect Twilio" }).click();
      await expect(page.getByText("must be a Twilio Account SID")).toBeVisible();

      await page.getByLabel("Account SID").fill(tw.sid);
      await page.getByLabel("Auth token").fill("not-the-token");
      await page.getByRole("button", { name: "Connect Twilio" }).click();
      await expect(page.getByTestId("twilio-connect-error")).toContainText("Twilio refused");
      await screenshots(page, "twilio-connect-refused");

      await page.getByLabel("Auth token").fill(tw.authToken);
      await page.getByRole("button", { name: "Connect Twilio" }).click();
      await expect(page.getByTestId("twilio-friendly-name")).toContainText("Acme Voice");
      await expect(page.getByTestId("twilio-account-sid")).toHaveText(tw.sid);
      await expect(page.getByTestId("twilio-not-connected")).toHaveCount(0);
    });

    await test.step("the Twilio account's numbers are listed; one click registers and configures one", async () => {
      for (const n of numbers) await expect(row(page, n)).toContainText("not registered");
      await expect(row(page, numbers[1]!)).toContainText("points elsewhere");
      await expect(page.getByTestId("twilio-subaccounts")).toContainText("EU numbers");

      // The callback URLs are needed first: the click says so.
      await row(page, numbers[0]!).getByRole("button", { name: "Register and configure" }).click();
      await expect(page.getByTestId("twilio-numbers-error")).toContainText("Fill in the callback URLs");

      await page.getByLabel("Call start URL").fill(backend.url("/start"));
      await page.getByLabel("Call end URL").fill(backend.url("/end"));
      await row(page, numbers[0]!).getByRole("button", { name: "Register and configure" }).click();
      await expect(row(page, numbers[0]!)).not.toContainText("not registered");
      await expect(row(page, numbers[0]!)).toContainText("registered");
      await expect(row(page, numbers[0]!)).toContainText("configured");
      await expect(row(page, numbers[0]!).getByRole("button")).toHaveCount(0);
      expect(twilio.twilioAccounts.byPhoneNumber(numbers[0]!)).toMatchObject({
        voiceUrl: engineUrl,
        statusCallback: engineUrl,
      });
      // Untouched numbers stay as they were at Twilio.
      expect(twilio.twilioAccounts.byPhoneNumber(numbers[1]!)!.voiceUrl).toBe("https://demo.twilio.com/welcome/voice/");
      // The sticky sidebar would be drawn mid-page in a full-page capture of a scrolled page.
      await page.evaluate(() => window.scrollTo(0, 0));
      await screenshots(page, "twilio-numbers");
    });

    await test.step("a call to the number reaches the backend, signed by Twilio", async () => {
      const played = await twilio.inboundCall({
        to: numbers[0]!,
        from: "+14155550100",
        durationSeconds: 30,
        stepDelayMs: 10,
      });
      expect(played.answer?.body).toContain("Hello from the Twilio page");
    });

    await test.step("Numbers shows it verified and configured", async () => {
      await page.goto("/dashboard/numbers");
      const numberRow = page.locator(`[data-testid="number-row"][data-phone-number="${numbers[0]}"]`);
      await expect(numberRow.getByTestId("number-verified")).toBeVisible();
      await expect(numberRow.getByTestId("number-configured")).toBeVisible();
      await screenshots(page, "numbers-verified");
    });

    await test.step("rotating the engine URL, after a confirmation, repoints the number at Twilio", async () => {
      await page.goto("/dashboard/twilio");
      await page.getByRole("button", { name: "Rotate engine URL" }).click();
      const dialog = page.getByRole("dialog");
      await expect(dialog).toContainText("stops working in 24 hours");
      await dialog.getByRole("button", { name: "Issue a new URL" }).click();
      await expect(page.getByTestId("engine-url-rotated")).toContainText(`Repointed at Twilio: ${numbers[0]}`);
      const rotated = page.getByTestId("twilio-engine-url");
      await expect(rotated).not.toHaveText(engineUrl);
      const newUrl = (await rotated.textContent())!.trim();
      expect(newUrl).toMatch(/\/api\/engine\/voice\/rt_/);
      expect(twilio.twilioAccounts.byPhoneNumber(numbers[0]!)).toMatchObject({
        voiceUrl: newUrl,
        statusCallback: newUrl,
      });
      // The sticky sidebar would be drawn mid-page in a full-page capture of a scrolled page.
      await page.evaluate(() => window.scrollTo(0, 0));
      await screenshots(page, "twilio-rotated");
    });

    await test.step("disconnect, after a confirmation", async () => {
      await page.getByRole("button", { name: "Disconnect" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Disconnect" }).click();
      await expect(page.getByTestId("twilio-not-connected")).toBeVisible();
      await page.goto("/dashboard/numbers");
      await expect(
        page.locator(`[data-testid="number-row"][data-phone-number="${numbers[0]}"]`).getByTestId("number-unverified"),
      ).toBeVisible();
    });
  } finally {
    await backend.close();
  }
});
