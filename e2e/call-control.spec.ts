import { expect, test, type Page } from "@playwright/test";
import { newCallSid, startTwilioSimulator, type TwilioSimulator } from "../src/twilio-simulator/twilio-simulator";
import { startReceiver } from "../tests/support/receiver";
import { apiResponse, createAccount, signedIn } from "../tests/support/accounts";
import { screenshot, uniqueNumber } from "../tests/support/helpers";

// Live calls on the Calls page (docs/decisions.md §13) against the built app, whose Twilio is this file's
// simulator: a call held up there shows at the top of Calls without a reload, and is hung up or
// transferred from the dashboard, each after a confirmation, with the result in the call's timeline.
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });
test.describe.configure({ mode: "serial" });

let twilio: TwilioSimulator;
let backend: Awaited<ReturnType<typeof startReceiver>>;
test.beforeAll(async () => {
  twilio = await startTwilioSimulator({ accounts: {}, port: Number(process.env.E2E_TWILIO_PORT), host: "127.0.0.1" });
  backend = await startReceiver((r, res) =>
    r.path === "/start"
      ? res.writeHead(200, { "content-type": "text/xml" }).end("<Response><Say>Hello</Say></Response>")
      : res.end("ok"),
  );
});
test.afterAll(async () => {
  await twilio?.close();
  await backend?.close();
});

/** A paid account connected to a simulated Twilio account, with one number set up through the connection. */
async function setUp(page: Page) {
  const account = await createAccount("control", { paid: false });
  const key = account.apiKey;
  await signedIn(page, account);
  // Pay through a fresh local checkout link: its page's Pay button POSTs to it.
  const checkout = await apiResponse(key, "/api/billing/checkout", { method: "POST" });
  expect(checkout.status).toBe(200);
  await fetch(((await checkout.json()) as { url: string }).url, { method: "POST", redirect: "manual" });
  const tw = twilio.addAccount({ friendlyName: "Acme Voice" });
  const number = uniqueNumber();
  twilio.addIncomingNumber(tw.sid, number);
  expect(
    (
      await apiResponse(key, "/api/twilio-connection", {
        method: "PUT",
        body: { accountSid: tw.sid, authToken: tw.authToken },
      })
    ).status,
  ).toBe(200);
  const created = await apiResponse(key, "/api/phone-numbers", {
    method: "POST",
    body: { phoneNumber: number, onCallStartUrl: backend.url("/start"), onCallEndUrl: backend.url("/end") },
  });
  expect(created.status, await created.text()).toBe(201);
  return { key, number };
}

for (const width of [1280, 390]) {
  test(`hang up and transfer a live call from the dashboard at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: width > 600 ? 800 : 844 });
    const { number } = await setUp(page);
    await page.goto("/dashboard/calls");

    await test.step("a live call appears at the top of Calls without a reload; Hang up asks first", async () => {
      const callSid = newCallSid();
      const played = twilio.inboundCall({ to: number, from: "+14155550100", callSid, holdMs: 60_000 });
      const live = page.locator(`[data-testid="live-call"][data-call-sid="${callSid}"]`);
      await expect(live).toBeVisible();
      await screenshot(page, `calls-live-${width}`);
      await live.getByRole("button", { name: "Hang up" }).click();
      const dialog = page.getByRole("dialog", { name: "Hang up this call?" });
      await expect(dialog).toContainText("cannot be undone");
      await dialog.getByRole("button", { name: "Hang up" }).click();
      const timeline = page.getByTestId("call-timeline");
      await expect(timeline.locator('[data-type="command"]')).toContainText("hangup by dashboard: done");
      await played;
      await expect(live).toBeHidden();
    });

    await test.step("Transfer takes a number and a whisper, asks first, and the timeline shows how the dial ended", async () => {
      // The hung-up call's details are open in the side drawer, a modal dialog: Escape closes it first.
      await page.keyboard.press("Escape");
      await expect(page.getByTestId("call-detail")).toBeHidden();
      const callSid = newCallSid();
      void twilio.inboundCall({ to: number, from: "+14155550101", callSid, holdMs: 60_000 });
      const live = page.locator(`[data-testid="live-call"][data-call-sid="${callSid}"]`);
      await expect(live).toBeVisible();
      await live.getByRole("button", { name: "Transfer" }).click();
      await live.getByLabel("Transfer to").fill("not a number");
      await live.getByTestId("transfer-submit").click();
      await expect(live).toContainText("An E.164 number");
      const to = uniqueNumber();
      await live.getByLabel("Transfer to").fill(to);
      await live.getByLabel(/Whisper/).fill("Caller asking about order A-17");
      await live.getByTestId("transfer-submit").click();
      const dialog = page.getByRole("dialog", { name: "Transfer this call?" });
      await expect(dialog).toContainText(to);
      await dialog.getByRole("button", { name: "Transfer" }).click();
      const timeline = page.getByTestId("call-timeline");
      await expect(timeline.locator('[data-type="command"]')).toContainText("transfer by dashboard: done");
      await expect(timeline.locator('[data-type="transfer"]')).toContainText(`Transfer to ${to}: completed`);
      await expect
        .poll(() => twilio.control.get(callSid)?.dials[0]?.whisper?.body ?? "")
        .toContain("Caller asking about order A-17");
      await expect(page.locator(`[data-testid="live-call"][data-call-sid="${callSid}"]`)).toBeHidden();
      await screenshot(page, `calls-transferred-${width}`);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
    });
  });
}
