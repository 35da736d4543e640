import { expect, test, type Page } from "@playwright/test";
import {
  newCallSid,
  postSigned,
  simulateInboundCall,
  startTwilioSimulator,
  type TwilioSimulator,
} from "../src/twilio-simulator/twilio-simulator";
import { startReceiver } from "../tests/support/receiver";
import {
  api,
  createAccount,
  expectWithinViewport,
  type Session,
  sessionOf,
  signedIn,
  type TestAccount,
} from "../tests/support/accounts";
import { screenshot, uniqueNumber } from "../tests/support/helpers";

// issue 17: at 390 px every table shows its key columns (status first) and its actions, without scrolling sideways.
const BASE = process.env.E2E_BASE_URL!;
const PHONE = { width: 390, height: 844 };
test.use({ baseURL: BASE, viewport: PHONE });
test.describe.configure({ mode: "serial" });

const LONG_LABEL =
  "A key label that runs to the limit of one hundred characters, to see that the table still holds up!!";

let twilio: TwilioSimulator;
let account: TestAccount;
/** Signed in once; both tests' browsers get this session. */
let session: Session;
let backend: Awaited<ReturnType<typeof startReceiver>>;
const seeded = { number: "", twilioNumber: "", completedSid: "", busySid: "" };

test.beforeAll(async () => {
  expect(LONG_LABEL).toHaveLength(100);
  twilio = await startTwilioSimulator({ accounts: {}, port: Number(process.env.E2E_TWILIO_PORT), host: "127.0.0.1" });
  backend = await startReceiver((r, res) =>
    r.path === "/start"
      ? res.writeHead(200, { "content-type": "text/xml" }).end("<Response><Say>Hi</Say></Response>")
      : res.writeHead(r.path === "/end" ? 500 : 200).end("ok"),
  );
  account = await createAccount("phone", { paid: true });
  const key = account.apiKey;
  seeded.number = uniqueNumber();
  await api(key, "/api/phone-numbers", {
    method: "POST",
    body: {
      phoneNumber: seeded.number,
      onCallStartUrl: backend.url("/start"),
      onCallEndUrl: backend.url("/end"),
      onErrorUrl: backend.url("/error"),
    },
  });
  await api(key, "/api/api-keys", { method: "POST", body: { label: LONG_LABEL } });
  const played = await simulateInboundCall({
    engineUrl: account.engineVoiceUrl,
    from: "+14155550100",
    to: seeded.number,
    durationSeconds: 61,
    stepDelayMs: 10,
  });
  seeded.completedSid = played.callSid;
  seeded.busySid = newCallSid();
  const base = {
    CallSid: seeded.busySid,
    AccountSid: `AC${"3".repeat(32)}`,
    From: "+14155550102",
    To: seeded.number,
    Direction: "inbound",
  };
  await postSigned(account.engineVoiceUrl, { ...base, CallStatus: "ringing" }, "unused");
  await postSigned(
    account.engineVoiceUrl,
    { ...base, CallStatus: "busy", CallbackSource: "call-progress-events" },
    "unused",
  );
  // Twilio connected last: from then on the engine checks signatures.
  const tw = twilio.addAccount({ friendlyName: "Phone Co" });
  seeded.twilioNumber = uniqueNumber();
  twilio.addIncomingNumber(tw.sid, seeded.twilioNumber, {
    friendlyName: "A friendly name long enough to crowd a phone's screen",
  });
  await api(key, "/api/twilio-connection", { method: "PUT", body: { accountSid: tw.sid, authToken: tw.authToken } });
  session = await sessionOf(account);
});
test.afterAll(async () => {
  await backend?.close();
  await twilio?.close();
});

async function open(page: Page, path: string) {
  await page.goto(path);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
}

test("calls, deliveries and the overview's latest calls: status and the detail button on screen at 390 px", async ({
  page,
}) => {
  await signedIn(page, session);
  await page.goto("/dashboard");

  const latest = page.locator(`[data-testid="call-row"][data-call-sid="${seeded.completedSid}"]`);
  await expect(latest).toBeVisible();
  await expectWithinViewport(page, latest, "the overview's latest call");
  await expectWithinViewport(page, latest.getByText("$0.04"), "its cost");

  await open(page, "/dashboard/calls");
  for (const sid of [seeded.completedSid, seeded.busySid]) {
    const row = page.locator(`[data-testid="call-row"][data-call-sid="${sid}"]`);
    await expectWithinViewport(page, row.getByTestId("call-status"), `call ${sid}'s status`);
    await expectWithinViewport(page, row.getByRole("button", { name: "Timeline" }), `call ${sid}'s Timeline button`);
  }
  // Status comes first in a stacked row.
  const first = page.locator(`[data-testid="call-row"][data-call-sid="${seeded.busySid}"]`);
  const statusBox = (await first.getByTestId("call-status").boundingBox())!;
  const fromBox = (await first.getByText("+14155550102").boundingBox())!;
  expect(statusBox.y).toBeLessThan(fromBox.y);
  await first.getByRole("button", { name: "Timeline" }).click();
  await expect(page.getByTestId("call-detail")).toBeVisible();
  await screenshot(page, "phone-calls");

  await open(page, "/dashboard/deliveries");
  const delivery = page
    .locator('[data-testid="delivery-row"][data-event-type="call.ended"]')
    .filter({ hasText: seeded.completedSid });
  await expect(delivery).toBeVisible();
  await expectWithinViewport(page, delivery.getByText(/^(Pending|Failed|Delivered)$/), "the delivery's status");
  await expectWithinViewport(page, delivery.getByRole("button", { name: "Details" }), "the delivery's Details button");
  await delivery.getByRole("button", { name: "Details" }).click();
  await expect(page.getByTestId("delivery-detail")).toBeVisible();
  await screenshot(page, "phone-deliveries");
});

test("keys, numbers, Twilio numbers and billing: every column and action on screen at 390 px, a 100-character label cut short with its title", async ({
  page,
}) => {
  await signedIn(page, session);

  await open(page, "/dashboard/keys");
  const labelled = page.getByTestId("api-key-label").filter({ hasText: LONG_LABEL.slice(0, 20) });
  await expectWithinViewport(page, labelled, "the long label");
  await expect(labelled).toHaveAttribute("title", LONG_LABEL);
  for (const row of await page.getByTestId("api-key-row").all()) {
    await expectWithinViewport(page, row.getByRole("button", { name: "Revoke" }), "a key's Revoke button");
    await expectWithinViewport(page, row.locator("td").first(), "a key's prefix");
  }
  await screenshot(page, "phone-keys");

  await open(page, "/dashboard/numbers");
  const number = page.locator(`[data-testid="number-row"][data-phone-number="${seeded.number}"]`);
  for (const name of ["Edit", "Send test event", "Delete"])
    await expectWithinViewport(page, number.getByRole("button", { name }), `the number's ${name} button`);
  await expectWithinViewport(page, number.getByTestId("number-start-url"), "the number's start URL");
  await screenshot(page, "phone-numbers");

  await open(page, "/dashboard/twilio");
  const twilioRow = page.locator(`[data-testid="twilio-number-row"][data-phone-number="${seeded.twilioNumber}"]`);
  await expectWithinViewport(page, twilioRow.getByText("not registered"), "the Twilio number's state");
  await expectWithinViewport(page, twilioRow.getByText("no voice URL"), "the Twilio number's configuration");
  await expectWithinViewport(
    page,
    twilioRow.getByRole("button", { name: "Register and configure" }),
    "its Register button",
  );
  await screenshot(page, "phone-twilio");

  await open(page, "/dashboard/billing");
  await expectWithinViewport(page, page.getByTestId("billing-status"), "the billing status");
  await expectWithinViewport(page, page.getByTestId("open-portal"), "the portal button");
  await screenshot(page, "phone-billing");
});
