import { expect, test, type Page } from "@playwright/test";
import { newCallSid, postSigned } from "../src/twilio-simulator/twilio-simulator";
import { startReceiver } from "../tests/support/receiver";
import { api, createAccount, signedIn } from "../tests/support/accounts";
import { screenshots, uniqueNumber } from "../tests/support/helpers";

// issue 17: a list's page, filters and open detail live in the URL, so refresh and Back keep them.
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

const CALLS_PAGE_SIZE = 25;
const DELIVERIES_PAGE_SIZE = 20;

/** A call the engine saw ring and end `status`, without a customer backend (no Twilio connection: unsigned is accepted). */
async function endedCall(engineUrl: string, to: string, status: "busy" | "no-answer"): Promise<string> {
  const CallSid = newCallSid();
  const base = { CallSid, AccountSid: `AC${"3".repeat(32)}`, From: "+14155550102", To: to, Direction: "inbound" };
  await postSigned(engineUrl, { ...base, CallStatus: "ringing" }, "unused");
  await postSigned(engineUrl, { ...base, CallStatus: status, CallbackSource: "call-progress-events" }, "unused");
  return CallSid;
}

const pageLabel = (page: Page) => page.getByTestId("calls-page");

test("calls: the page, the filters and the open call survive a refresh and Back", async ({ page }) => {
  const account = await createAccount("calls-url", { paid: true });
  const to = uniqueNumber();
  await api(account.apiKey, "/api/phone-numbers", {
    method: "POST",
    body: { phoneNumber: to, onCallStartUrl: "http://127.0.0.1:9/start", onCallEndUrl: "http://127.0.0.1:9/end" },
  });
  const sids: string[] = [];
  for (let i = 0; i < CALLS_PAGE_SIZE + 2; i++)
    sids.push(await endedCall(account.engineVoiceUrl, to, i % 9 === 0 ? "no-answer" : "busy"));

  await signedIn(page, account);
  await page.goto("/dashboard/calls");
  await expect(page.getByTestId("call-row")).toHaveCount(CALLS_PAGE_SIZE);
  await expect(pageLabel(page)).toHaveText("Page 1");

  await page.getByRole("button", { name: "Older" }).click();
  await expect(pageLabel(page)).toHaveText("Page 2");
  await expect(page).toHaveURL(/[?&]after=/);
  await expect(page.getByTestId("call-row")).toHaveCount(2);
  const older = (await page.getByTestId("call-row").first().getAttribute("data-call-sid"))!;

  // Refresh: still page 2, the same calls.
  await page.reload();
  await expect(pageLabel(page)).toHaveText("Page 2");
  await expect(page.getByTestId("call-row").first()).toHaveAttribute("data-call-sid", older);

  // Open a call: in the URL, and there after a refresh.
  await page
    .locator(`[data-testid="call-row"][data-call-sid="${older}"]`)
    .getByRole("button", { name: "Timeline" })
    .click();
  await expect(page).toHaveURL(new RegExp(`[?&]call=${older}`));
  await page.reload();
  await expect(page.getByTestId("call-detail")).toContainText(older);
  // The drawer is modal: Escape closes it (and takes it out of the URL) before the filters are used. Right
  // after a reload the server-rendered drawer may not be hydrated yet, and a key pressed then does nothing:
  // press again until it closes, as a person would.
  await expect(async () => {
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("call-detail")).toHaveCount(0, { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  await expect(page).not.toHaveURL(/[?&]call=/);

  // A filter starts again at page 1 and is in the URL; Back returns to page 2.
  await page.locator('[data-testid="filter-status"]:not([disabled])').selectOption("no-answer");
  await expect(page).toHaveURL(/[?&]status=no-answer/);
  await expect(page).not.toHaveURL(/[?&]after=/);
  await expect(pageLabel(page)).toHaveText("Page 1");
  await expect(page.getByTestId("call-row")).toHaveCount(sids.filter((_, i) => i % 9 === 0).length);
  for (const row of await page.getByTestId("call-row").all())
    await expect(row).toHaveAttribute("data-status", "no-answer");
  await page.reload();
  // After a reload the server's disabled filters (before hydration) and the live ones can be in the page together
  // for a moment: the live one is the one a person uses.
  await expect(page.locator('[data-testid="filter-status"]:not([disabled])')).toHaveValue("no-answer");
  await screenshots(page, "calls-filtered");

  await page.goBack();
  await expect(pageLabel(page)).toHaveText("Page 2");
  await expect(page.locator('[data-testid="filter-status"]:not([disabled])')).toHaveValue("");
  await expect(page.getByTestId("call-detail")).toHaveCount(0);

  // An edited link whose cursor the API refuses offers the first page, not a retry that cannot work.
  await page.goto("/dashboard/calls?after=bogus");
  await expect(page.getByTestId("calls-bad-page")).toBeVisible();
  await page.getByRole("button", { name: "First page" }).click();
  await expect(pageLabel(page)).toHaveText("Page 1");
  await expect(page).not.toHaveURL(/after=/);
});

/**
 * A call the engine took and that ended busy: its call.started is answered by `startUrl` (a DELIVERED row),
 * and its call.ended goes to the number's onCallEndUrl.
 */
async function busyCall(engineUrl: string, to: string): Promise<void> {
  const base = { CallSid: newCallSid(), AccountSid: `AC${"4".repeat(32)}`, From: "+14155550103", To: to };
  await postSigned(engineUrl, { ...base, Direction: "inbound", CallStatus: "ringing" }, "unused");
  await postSigned(engineUrl, { ...base, Direction: "inbound", CallStatus: "busy" }, "unused");
}

async function waitForDeliveries(apiKey: string, status: string, count: number): Promise<void> {
  await expect
    .poll(async () => (await api(apiKey, `/api/webhook-deliveries?status=${status}&limit=1`)).total, {
      timeout: 30_000,
    })
    .toBe(count);
}

test("deliveries: ?status=FAILED is honoured; the page and the open delivery survive a refresh and Back", async ({
  page,
}) => {
  // 410 Gone is final (Standard Webhooks): each call.ended sent to /fails is FAILED after one attempt.
  const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>hi</Say></Response>';
  const backend = await startReceiver((r, res) =>
    r.path === "/fails" ? res.writeHead(410).end("down") : res.writeHead(200, { "content-type": "text/xml" }).end(XML),
  );
  try {
    const account = await createAccount("deliveries-url", { paid: true });
    const to = uniqueNumber();
    await api(account.apiKey, "/api/phone-numbers", {
      method: "POST",
      body: { phoneNumber: to, onCallStartUrl: backend.url("/start"), onCallEndUrl: backend.url("/fails") },
    });
    // Each call: its call.started DELIVERED, its call.ended FAILED.
    const CALLS = DELIVERIES_PAGE_SIZE + 1;
    for (let i = 0; i < CALLS; i++) await busyCall(account.engineVoiceUrl, to);
    await waitForDeliveries(account.apiKey, "FAILED", CALLS);
    await waitForDeliveries(account.apiKey, "DELIVERED", CALLS);

    await signedIn(page, account);
    await page.goto("/dashboard/deliveries?status=FAILED");
    await expect(page.getByTestId("delivery-status-filter")).toHaveValue("FAILED");
    await expect(page.getByTestId("delivery-row")).toHaveCount(DELIVERIES_PAGE_SIZE);
    for (const row of await page.getByTestId("delivery-row").all())
      await expect(row).toHaveAttribute("data-status", "FAILED");
    await expect(page.getByTestId("deliveries-range")).toHaveText(`Showing 1–${DELIVERIES_PAGE_SIZE} of ${CALLS}`);

    await page.getByRole("button", { name: "Next" }).click();
    await expect(page).toHaveURL(/[?&]page=2/);
    await expect(page.getByTestId("deliveries-range")).toHaveText(`Showing ${CALLS}–${CALLS} of ${CALLS}`);
    await page.reload();
    await expect(page.getByTestId("deliveries-range")).toHaveText(`Showing ${CALLS}–${CALLS} of ${CALLS}`);
    await expect(page.getByTestId("delivery-status-filter")).toHaveValue("FAILED");

    // The open delivery is in the URL too.
    await page.getByTestId("delivery-row").getByRole("button", { name: "Details" }).click();
    await expect(page).toHaveURL(/[?&]delivery=/);
    await page.reload();
    await expect(page.getByTestId("delivery-detail")).toContainText("down");
    await screenshots(page, "deliveries-failed-page-2");

    // Back: closes the detail, then page 1 of FAILED.
    await page.goBack();
    await expect(page.getByTestId("delivery-detail")).toHaveCount(0);
    await page.goBack();
    await expect(page.getByTestId("deliveries-range")).toHaveText(`Showing 1–${DELIVERIES_PAGE_SIZE} of ${CALLS}`);

    // All statuses: the DELIVERED ones are there too.
    await page.getByTestId("delivery-status-filter").selectOption("");
    await expect(page).not.toHaveURL(/status=/);
    await expect(page.getByTestId("deliveries-range")).toHaveText(`Showing 1–${DELIVERIES_PAGE_SIZE} of ${2 * CALLS}`);
    await expect(page.locator('[data-testid="delivery-row"][data-status="DELIVERED"]')).not.toHaveCount(0);
  } finally {
    await backend.close();
  }
});

test.describe("before the page's scripts run", () => {
  test.use({ javaScriptEnabled: false });

  // A filter chosen before hydration would be read back as its rendered value by React's replayed
  // change event (a status chosen too early cleared every filter): the server's HTML holds the
  // controlled filters disabled, and the hydrated page enables them (the test above uses them).
  test("the list filters are disabled until the page is hydrated", async ({ page }) => {
    const account = await createAccount("calls-early", { paid: false });
    await signedIn(page, account);
    await page.goto("/dashboard/calls?status=busy");
    await expect(page.getByTestId("filter-status")).toBeDisabled();
    await expect(page.getByTestId("filter-status")).toHaveValue("busy");
    await expect(page.getByTestId("filter-since")).toBeDisabled();
    // The search box is an uncontrolled form field: it works without scripts, so it is never held back.
    await expect(page.getByTestId("filter-sid")).toBeEnabled();
    await page.goto("/dashboard/deliveries?status=FAILED");
    await expect(page.getByTestId("delivery-status-filter")).toBeDisabled();
  });
});
