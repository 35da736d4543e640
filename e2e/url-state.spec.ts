import { expect, test, type Page } from "@playwright/test";
import { newCallSid, postSigned } from "../src/twilio-simulator/twilio-simulator";
import { startReceiver } from "../tests/integration/support/receiver";
import { api, createAccount, logIn } from "./support/accounts";
import { screenshots, uniqueNumber } from "./support/helpers";

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

  await logIn(page, account);
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

  // A filter starts again at page 1 and is in the URL; Back returns to page 2.
  await page.getByTestId("filter-status").selectOption("no-answer");
  await expect(page).toHaveURL(/[?&]status=no-answer/);
  await expect(page).not.toHaveURL(/[?&]after=/);
  await expect(pageLabel(page)).toHaveText("Page 1");
  await expect(page.getByTestId("call-row")).toHaveCount(sids.filter((_, i) => i % 9 === 0).length);
  for (const row of await page.getByTestId("call-row").all())
    await expect(row).toHaveAttribute("data-status", "no-answer");
  await page.reload();
  await expect(page.getByTestId("filter-status")).toHaveValue("no-answer");
  await screenshots(page, "calls-filtered");

  await page.goBack();
  await expect(pageLabel(page)).toHaveText("Page 2");
  await expect(page.getByTestId("filter-status")).toHaveValue("");
  await expect(page.getByTestId("call-detail")).toContainText(older);

  // An edited link whose cursor the API refuses offers the first page, not a retry that cannot work.
  await page.goto("/dashboard/calls?after=bogus");
  await expect(page.getByTestId("calls-bad-page")).toBeVisible();
  await page.getByRole("button", { name: "First page" }).click();
  await expect(pageLabel(page)).toHaveText("Page 1");
  await expect(page).not.toHaveURL(/after=/);
});

/** POST /api/webhook-deliveries/test, waiting out its limit of 10 a minute per account (docs/decisions.md §20). */
async function sendTestEvent(apiKey: string, phoneNumberId: string): Promise<void> {
  for (;;) {
    const res = await fetch(`${BASE}/api/webhook-deliveries/test`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ phoneNumberId, type: "call.ended" }),
    });
    if (res.status !== 429) {
      expect(res.status).toBe(200);
      return;
    }
    await new Promise((r) => setTimeout(r, Number(res.headers.get("retry-after") ?? "1") * 1000));
  }
}

test("deliveries: ?status=FAILED is honoured; the page and the open delivery survive a refresh and Back", async ({
  page,
}) => {
  // 22 test events at 10 a minute per account: about 75 s of them.
  test.setTimeout(180_000);
  const backend = await startReceiver((r, res) =>
    res.writeHead(r.path === "/fails" ? 500 : 200).end(r.path === "/fails" ? "down" : "ok"),
  );
  try {
    const account = await createAccount("deliveries-url", { paid: true });
    const failing = await api(account.apiKey, "/api/phone-numbers", {
      method: "POST",
      body: { phoneNumber: uniqueNumber(), onCallStartUrl: backend.url("/ok"), onCallEndUrl: backend.url("/fails") },
    });
    const working = await api(account.apiKey, "/api/phone-numbers", {
      method: "POST",
      body: { phoneNumber: uniqueNumber(), onCallStartUrl: backend.url("/ok"), onCallEndUrl: backend.url("/ok") },
    });
    // A test event that gets a 500 is FAILED at once (it is not retried); one that gets a 200 is DELIVERED.
    for (let i = 0; i < DELIVERIES_PAGE_SIZE + 1; i++) await sendTestEvent(account.apiKey, failing.phoneNumber.id);
    await sendTestEvent(account.apiKey, working.phoneNumber.id);

    await logIn(page, account);
    await page.goto("/dashboard/deliveries?status=FAILED");
    await expect(page.getByTestId("delivery-status-filter")).toHaveValue("FAILED");
    await expect(page.getByTestId("delivery-row")).toHaveCount(DELIVERIES_PAGE_SIZE);
    for (const row of await page.getByTestId("delivery-row").all())
      await expect(row).toHaveAttribute("data-status", "FAILED");
    await expect(page.getByTestId("deliveries-range")).toHaveText(
      `Showing 1–${DELIVERIES_PAGE_SIZE} of ${DELIVERIES_PAGE_SIZE + 1}`,
    );

    await page.getByRole("button", { name: "Next" }).click();
    await expect(page).toHaveURL(/[?&]page=2/);
    await expect(page.getByTestId("deliveries-range")).toHaveText(
      `Showing ${DELIVERIES_PAGE_SIZE + 1}–${DELIVERIES_PAGE_SIZE + 1} of ${DELIVERIES_PAGE_SIZE + 1}`,
    );
    await page.reload();
    await expect(page.getByTestId("deliveries-range")).toHaveText(
      `Showing ${DELIVERIES_PAGE_SIZE + 1}–${DELIVERIES_PAGE_SIZE + 1} of ${DELIVERIES_PAGE_SIZE + 1}`,
    );
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
    await expect(page.getByTestId("deliveries-range")).toHaveText(
      `Showing 1–${DELIVERIES_PAGE_SIZE} of ${DELIVERIES_PAGE_SIZE + 1}`,
    );

    // All statuses: the DELIVERED one is there too.
    await page.getByTestId("delivery-status-filter").selectOption("");
    await expect(page).not.toHaveURL(/status=/);
    await expect(page.locator('[data-testid="delivery-row"][data-status="DELIVERED"]')).toHaveCount(1);
  } finally {
    await backend.close();
  }
});
