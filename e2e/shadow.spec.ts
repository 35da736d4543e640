import { expect, type Page, test } from "@playwright/test";
import { simulateInboundCall } from "../src/twilio-simulator/twilio-simulator";
import { api, apiResponse, createAccount, signedIn, type TestAccount } from "../tests/support/accounts";
import { screenshots, uniqueNumber } from "../tests/support/helpers";
import { overflowOf, seriousAxeFindings, watchViolations } from "../tests/support/page-checks";
import { startReceiver } from "../tests/support/receiver";

/**
 * Issue 46 (docs/decisions.md §23) in the browser: a shadow set on a number's Shadow tab, real calls placed
 * through the engine (the simulator plays Twilio), the differing call's two TwiML documents side by side as a
 * diff, and a past call replayed against another backend from its page, with its refusals in plain words.
 */
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

const PRIMARY = "<Response><Say>Thanks for calling Acme</Say><Dial>+14155550199</Dial></Response>";
const V2 = `<Response>
  <Say>Thanks for calling Acme</Say>
  <Say>Calls may be recorded</Say>
  <Dial timeout="20">+14155550199</Dial>
</Response>`;

type Backend = Awaited<ReturnType<typeof startReceiver>>;
let backend: Backend;
test.beforeAll(async () => {
  backend = await startReceiver((r, res) => {
    const xml = (body: string) => res.writeHead(200, { "content-type": "text/xml" }).end(body);
    if (r.path === "/start") return xml(PRIMARY);
    if (r.path === "/v2/start") return xml(V2);
    // The primary's answer laid out another way: the same once normalised.
    if (r.path === "/same/start")
      return xml(`<?xml version="1.0"?>\n<Response>\n  ${PRIMARY.slice(10, -11)}\n</Response>`);
    if (r.path === "/broken/start") return res.writeHead(503).end("down for maintenance");
    return res.writeHead(200).end("ok");
  });
});
test.afterAll(async () => {
  await backend?.close();
});

async function numberFor(account: TestAccount): Promise<{ id: string; phoneNumber: string }> {
  const phoneNumber = uniqueNumber();
  const body = { phoneNumber, onCallStartUrl: backend.url("/start"), onCallEndUrl: backend.url("/end") };
  const { phoneNumber: n } = await api(account.apiKey, "/api/phone-numbers", { method: "POST", body });
  return { id: n.id, phoneNumber };
}

const call = (account: TestAccount, to: string) =>
  simulateInboundCall({
    engineUrl: account.engineVoiceUrl,
    from: "+14155550100",
    to,
    durationSeconds: 5,
    stepDelayMs: 5,
  });

/** The checks every page passes, at a phone's width and a laptop's, in the state the test has reached. */
async function pageChecks(page: Page, violations: string[], what: string) {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    const found = (await seriousAxeFindings(page)).map((f) => `${f.id}: ${f.help} — ${f.targets.join(", ")}`);
    expect(found, `${what} at ${width} px: serious axe findings`).toEqual([]);
    expect(await overflowOf(page), `${what} at ${width} px: wider than the viewport`).toBeLessThanOrEqual(0);
  }
  expect(violations.splice(0), `${what}: CSP violations`).toEqual([]);
}

test("a shadow set on the number's Shadow tab: its differing and failed calls side by side, then cleared", async ({
  page,
}) => {
  const account = await createAccount("shadow", { paid: true });
  const number = await numberFor(account);
  const violations = await watchViolations(page);
  await signedIn(page, account);

  // From the list to the number's Shadow tab.
  await page.goto("/dashboard/numbers");
  const row = page.getByTestId("number-row").filter({ hasText: number.phoneNumber });
  await row.getByRole("link", { name: "Shadow" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/numbers/${number.id}/shadow$`));
  await expect(page.getByRole("link", { name: "Shadow", exact: true })).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("shadow-state")).toContainText("No shadow");
  await expect(page.getByTestId("shadow-calls-empty")).toBeVisible();

  // The browser checks the form with the API's rules before anything is sent.
  const form = page.getByTestId("shadow-form");
  await form.getByLabel("Shadow URL").fill("not a url");
  await form.getByRole("button", { name: "Start shadowing" }).click();
  await expect(form.getByLabel("Shadow URL")).toHaveAttribute("aria-invalid", "true");
  await form.getByLabel("Shadow URL").fill(backend.url("/v2/start"));
  await form.getByLabel("Sample rate (%)").fill("150");
  await form.getByRole("button", { name: "Start shadowing" }).click();
  await expect(form.getByText("Sample rate must be a percentage from 0 to 100")).toBeVisible();
  expect((await api(account.apiKey, `/api/phone-numbers/${number.id}`)).phoneNumber.shadow).toBeNull();

  await form.getByLabel("Shadow URL").fill(backend.url("/v2/start"));
  await form.getByLabel("Sample rate (%)").fill("100");
  await form.getByRole("button", { name: "Start shadowing" }).click();
  await expect(page.getByTestId("shadow-state")).toContainText(`Sending 100% of calls to ${backend.url("/v2/start")}`);
  const saved = await api(account.apiKey, `/api/phone-numbers/${number.id}`);
  expect(saved.phoneNumber.shadow).toMatchObject({
    onCallStartUrl: backend.url("/v2/start"),
    sampleRate: 1,
    until: null,
  });

  // A real call: the caller gets the primary's answer; the shadow's differs, and the tab shows both.
  const played = await call(account, number.phoneNumber);
  expect(played.answer?.body).toContain("Thanks for calling Acme");
  expect(played.answer?.body).not.toContain("Calls may be recorded");
  const differing = page.locator(`[data-testid="shadow-call"][data-outcome="different"]`);
  await expect(differing).toHaveCount(1);
  await expect(differing.getByRole("link", { name: played.callSid })).toBeVisible();
  await expect(page.getByTestId("shadow-count-mirrored")).toHaveText("1");
  await expect(page.getByTestId("shadow-count-different")).toHaveText("1");
  await expect(page.getByTestId("shadow-count-same")).toHaveText("0");
  // The diff: the shadow's extra line and its changed <Dial> marked added, the primary's <Dial> marked removed,
  // each said in words for a screen reader, not only by colour.
  const diff = differing.getByTestId("twiml-diff");
  const added = diff.locator('td[data-kind="added"]');
  await expect(added.filter({ hasText: "<Say>Calls may be recorded</Say>" })).toHaveCount(1);
  await expect(added.filter({ hasText: '<Dial timeout="20">+14155550199</Dial>' })).toHaveCount(1);
  await expect(diff.locator('td[data-kind="removed"]')).toHaveText(["−removed: <Dial>+14155550199</Dial>"]);
  await expect(diff.locator('td[data-kind="same"][data-side="a"]').first()).toHaveText("<Response>");
  await expect(differing.getByTestId("twiml-diff-summary")).toHaveText(
    "1 line only in Your backend (−), 2 lines only in Shadow (+).",
  );
  await pageChecks(page, violations, "the Shadow tab with a differing call");
  await screenshots(page, "shadow-tab");

  // A shadow that fails: the call is listed as failed, with the shadow's error.
  await page.getByTestId("shadow-form").getByLabel("Shadow URL").fill(backend.url("/broken/start"));
  await page.getByRole("button", { name: "Save shadow" }).click();
  await expect(page.getByTestId("shadow-state")).toContainText(backend.url("/broken/start"));
  const failedCall = await call(account, number.phoneNumber);
  expect(failedCall.answer?.body).toContain("Thanks for calling Acme");
  const failed = page.locator(`[data-testid="shadow-call"][data-outcome="failed"]`);
  await expect(failed).toHaveCount(1);
  await expect(failed.getByTestId("comparison-outcome")).toHaveText("Failed");
  await expect(failed.getByTestId("comparison-error")).not.toBeEmpty();
  await expect(page.getByTestId("shadow-count-failed")).toHaveText("1");

  // Narrowed to the last hour, both calls still count; then the shadow is cleared.
  await page.getByLabel("Since").selectOption({ label: "The last hour" });
  await expect(page.getByTestId("shadow-count-mirrored")).toHaveText("2");
  await page.getByRole("button", { name: "Stop shadowing" }).click();
  await expect(page.getByTestId("shadow-state")).toContainText("No shadow");
  expect((await api(account.apiKey, `/api/phone-numbers/${number.id}`)).phoneNumber.shadow).toBeNull();
  await page.goto("/dashboard/numbers");
  await expect(row.getByTestId("number-shadowed")).toHaveCount(0);
});

test("a past call replayed against another backend: the outcome and both answers side by side, refusals in words", async ({
  page,
}) => {
  const account = await createAccount("replay", { paid: true });
  const number = await numberFor(account);
  const played = await call(account, number.phoneNumber);
  const violations = await watchViolations(page);
  await signedIn(page, account);
  await page.goto(`/dashboard/calls?call=${played.callSid}`);
  const drawer = page.getByTestId("call-detail");
  const replay = drawer.getByTestId("replay-call");
  await replay.getByRole("button", { name: "Replay against…" }).click();
  const url = replay.getByLabel("URL");

  await url.fill(backend.url("/v2/start"));
  await replay.getByRole("button", { name: "Replay", exact: true }).click();
  const result = replay.getByTestId("replay-result");
  await expect(result).toHaveAttribute("data-outcome", "different");
  await expect(result.getByTestId("comparison-outcome")).toHaveText("Different answer");
  await expect(result.getByTestId("comparison-a").getByTestId("comparison-answer")).toHaveAttribute("data-code", "xml");
  await expect(result.locator('td[data-kind="added"]').filter({ hasText: "Calls may be recorded" })).toHaveCount(1);
  await pageChecks(page, violations, "a call's replay");
  await screenshots(page, "call-replay");

  // The same answer, laid out differently, is the same.
  await url.fill(backend.url("/same/start"));
  await replay.getByRole("button", { name: "Replay", exact: true }).click();
  await expect(result).toHaveAttribute("data-outcome", "same");
  await expect(result.getByTestId("twiml-diff-summary")).toHaveText("The two lay out the same, line for line.");

  // A backend that fails: the outcome, and why.
  await url.fill(backend.url("/broken/start"));
  await replay.getByRole("button", { name: "Replay", exact: true }).click();
  await expect(result).toHaveAttribute("data-outcome", "failed");
  await expect(result.getByTestId("comparison-b").getByTestId("comparison-error")).not.toBeEmpty();

  // A URL that is not one is refused in the browser, under the field.
  await url.fill("ftp://example.com/start");
  await replay.getByRole("button", { name: "Replay", exact: true }).click();
  await expect(url).toHaveAttribute("aria-invalid", "true");

  // Ten a minute (a bucket that gains one back every 6 s): with the bucket emptied over the API, the form's next
  // replay is refused in words. Emptied again if a token came back before the form's request arrived.
  await url.fill(backend.url("/v2/start"));
  await expect(async () => {
    const statuses = await Promise.all(
      Array.from({ length: 12 }, () =>
        apiResponse(account.apiKey, `/api/calls/${played.callSid}/replay`, {
          method: "POST",
          body: { onCallStartUrl: backend.url("/start") },
        }).then((r) => r.status),
      ),
    );
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    await replay.getByRole("button", { name: "Replay", exact: true }).click();
    await expect(replay.getByTestId("replay-error")).toContainText("Ten replays a minute", { timeout: 5_000 });
  }).toPass({ timeout: 60_000 });
  expect(violations).toEqual([]);
});
