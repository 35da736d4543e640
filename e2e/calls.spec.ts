import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { newCallSid, postSigned, simulateInboundCall } from "../src/twilio-simulator/twilio-simulator";
import { startReceiver } from "../tests/support/receiver";
import { api, createAccount, signedIn } from "../tests/support/accounts";
import { screenshots, uniqueNumber } from "../tests/support/helpers";

const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

test("the call log: every ending listed, filters in the URL, a failed call's timeline, CSV export, new calls without reload", async ({
  page,
}) => {
  const backend = await startReceiver();
  backend.answer((req, res) => {
    if (req.path === "/ok/start")
      return res
        .writeHead(200, { "content-type": "text/xml" })
        .end("<Response><Say>Hello from the e2e backend</Say></Response>");
    if (req.path === "/broken/start") return res.writeHead(500).end("backend exploded");
    return res.writeHead(200).end("ok");
  });
  try {
    // A paid account and its calls, made over the API: this test is about the call log, not signing up.
    const account = await createAccount("calls", { paid: true });
    const key = account.apiKey;
    await signedIn(page, account);
    const engineUrl: string = (await api(key, "/api/account")).account.engineVoiceUrl;
    const register = async (tag: string) => {
      const phoneNumber = uniqueNumber();
      const body = {
        phoneNumber,
        onCallStartUrl: backend.url(`/${tag}/start`),
        onCallEndUrl: backend.url(`/${tag}/end`),
        onErrorUrl: backend.url(`/${tag}/error`),
      };
      return {
        phoneNumber,
        id: (await api(key, "/api/phone-numbers", { method: "POST", body })).phoneNumber.id as string,
      };
    };
    const ok = await register("ok");
    const broken = await register("broken");

    const completed = await simulateInboundCall({
      engineUrl,
      from: "+14155550100",
      to: ok.phoneNumber,
      durationSeconds: 61,
      stepDelayMs: 10,
    });
    const fellBack = await simulateInboundCall({
      engineUrl,
      from: "+14155550101",
      to: broken.phoneNumber,
      durationSeconds: 4,
      stepDelayMs: 10,
    });
    expect(fellBack.answer?.body).toContain("<Hangup/>");
    const busySid = newCallSid();
    const base = {
      CallSid: busySid,
      AccountSid: `AC${"3".repeat(32)}`,
      From: "+14155550102",
      To: ok.phoneNumber,
      Direction: "inbound",
    };
    await postSigned(engineUrl, { ...base, CallStatus: "ringing" }, "unused");
    await postSigned(engineUrl, { ...base, CallStatus: "busy", CallbackSource: "call-progress-events" }, "unused");

    const row = (sid: string) => page.locator(`[data-testid="call-row"][data-call-sid="${sid}"]`);
    // The Overview lists every call, whatever its end, and warns that the backend did not answer one today.
    await page.goto("/dashboard");
    await expect(page.getByTestId("overview-status")).toHaveText("Active");
    await expect(page.getByTestId("fallback-warning")).toContainText("did not answer 1 call today");
    await expect(page.getByTestId("call-row")).toHaveCount(3);
    await expect(row(busySid).getByTestId("call-status")).toHaveText("Busy");
    await page.getByRole("link", { name: "See today's calls" }).click();
    await expect(page).toHaveURL(/\/dashboard\/calls\?since=\d{4}-\d{2}-\d{2}$/);
    await expect(row(completed.callSid)).toBeVisible();
    await expect(row(completed.callSid).getByTestId("call-status")).toHaveText("Completed");
    await expect(row(busySid).getByTestId("call-status")).toHaveText("Busy");
    await expect(row(fellBack.callSid).getByTestId("call-error")).toHaveText("START_CALLBACK_STATUS");
    await expect(page.getByTestId("call-row")).toHaveCount(3);
    // Times in the viewer's zone with seconds; UTC on hover.
    const time = row(completed.callSid).locator("time");
    await expect(time).toHaveAttribute("title", / UTC$/);
    await expect(time).toHaveText(/\d{1,2}:\d{2}:\d{2}/);
    await screenshots(page, "calls-log");

    await test.step("filter by status: kept in the URL across a refresh and Back", async () => {
      await page.getByTestId("filter-status").selectOption("busy");
      await expect(page).toHaveURL(/status=busy/);
      await expect(page.getByTestId("call-row")).toHaveCount(1);
      await expect(row(busySid)).toBeVisible();
      await page.reload();
      await expect(page.getByTestId("filter-status")).toHaveValue("busy");
      await expect(page.getByTestId("call-row")).toHaveCount(1);
      await page.goBack();
      await expect(page).not.toHaveURL(/status=/);
      await expect(page.getByTestId("call-row")).toHaveCount(3);
    });

    await test.step("filter by number and by date range", async () => {
      await page.getByTestId("filter-number").selectOption(broken.id);
      await expect(page).toHaveURL(new RegExp(`number=${broken.id}`));
      await expect(page.getByTestId("call-row")).toHaveCount(1);
      await expect(row(fellBack.callSid)).toBeVisible();
      await page.getByRole("button", { name: "Clear filters" }).click();
      await expect(page.getByTestId("call-row")).toHaveCount(3);
      const tomorrow = await page.evaluate(() => {
        const d = new Date();
        d.setDate(d.getDate() + 1);
        return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
      });
      await page.getByTestId("filter-since").fill(tomorrow);
      await expect(page).toHaveURL(new RegExp(`since=${tomorrow}`));
      await expect(page.getByTestId("calls-empty")).toContainText("No calls match");
      await page.getByRole("button", { name: "Clear filters" }).click();
      await expect(page.getByTestId("call-row")).toHaveCount(3);
    });

    await test.step("search by call SID and open the failed call's timeline", async () => {
      await page.getByTestId("filter-sid").fill(fellBack.callSid);
      await page.getByTestId("filter-sid-submit").click();
      await expect(page).toHaveURL(new RegExp(`sid=${fellBack.callSid}`));
      await expect(page.getByTestId("call-row")).toHaveCount(1);
      await row(fellBack.callSid).getByRole("button", { name: "Timeline" }).click();
      await expect(page).toHaveURL(new RegExp(`call=${fellBack.callSid}`));
      const detail = page.getByTestId("call-detail");
      await expect(detail.getByTestId("call-detail-error")).toContainText("START_CALLBACK_STATUS");
      await expect(detail.getByTestId("call-detail-error")).toContainText("HTTP 500");
      await expect(detail.getByTestId("call-detail-answer")).toHaveAttribute("data-code", "fallback");
      await expect(detail.getByTestId("call-detail-answer")).toContainText("Last resort or apology");
      // Why it ended, and what the error means and what to do: the reference's text (src/shared/call-outcomes.ts).
      await expect(detail.getByTestId("call-detail-end-reason")).toHaveAttribute("data-end-reason", "completed");
      await expect(detail.getByTestId("call-detail-end-reason")).toContainText("Completed");
      await expect(detail.getByTestId("call-detail-end-advice")).toContainText("What to do:");
      await expect(detail.getByTestId("call-detail-error-advice")).toContainText(
        "answered with a status other than 2xx",
      );
      // Each entry says how long after the call's start it happened, to the millisecond.
      await expect(detail.getByTestId("timeline-offset").first()).toHaveText(/^\+(\d+ min )?\d+\.\d{3} s$/);
      const started = detail.locator('[data-testid="timeline-entry"][data-type="call.started"]');
      await expect(started).toContainText("HTTP 500");
      await expect(started).toContainText("backend exploded");
      await expect(started.getByTestId("answer-use")).toHaveAttribute("data-code", "START_CALLBACK_STATUS");
      await expect(detail.locator('[data-testid="timeline-entry"][data-type="twiml"]')).toContainText("<Hangup/>");
      await expect(detail.locator('[data-testid="timeline-entry"][data-type="request"]').first()).toContainText(
        "Twilio voice request",
      );
      await expect(
        detail.locator('[data-testid="timeline-entry"][data-type="event"]').filter({ hasText: "call.error" }),
      ).toBeVisible();
      await expect(detail.locator('[data-testid="timeline-entry"][data-type="usage"]')).toContainText("Billed 1 min");
      // A shared link opens the same call.
      await page.reload();
      await expect(page.getByTestId("call-detail").getByTestId("call-detail-answer")).toHaveAttribute(
        "data-code",
        "fallback",
      );
      await screenshots(page, "calls-timeline");
    });

    await test.step("export the filtered calls as CSV (every page)", async () => {
      await page.goto("/dashboard/calls?status=completed");
      await expect(page.getByTestId("call-row")).toHaveCount(2);
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-csv").click()]);
      const csv = readFileSync((await download.path())!, "utf8")
        .trim()
        .split("\r\n");
      expect(csv[0]).toBe(
        "callSid,direction,from,to,phoneNumberId,status,startedAt,endedAt,durationSeconds,billedMinutes,totalCost,answeredBy,answer,errorCode,errorMessage,endReason,sipResponseCode,twilioErrorCode",
      );
      expect(csv).toHaveLength(3);
      const bySid = new Map(csv.slice(1).map((line) => [line.split(",")[0], line]));
      expect(bySid.get(completed.callSid)).toContain(",completed,");
      expect(bySid.get(completed.callSid)).toContain(",2,0.04,,xml,,,completed,,");
      expect(bySid.get(fellBack.callSid)).toContain(",fallback,START_CALLBACK_STATUS,");
      expect(bySid.has(busySid)).toBe(false);
    });

    await test.step("a new call appears without a reload", async () => {
      await page.goto("/dashboard/calls");
      await expect(page.getByTestId("call-row")).toHaveCount(3);
      const fresh = await simulateInboundCall({
        engineUrl,
        from: "+14155550103",
        to: ok.phoneNumber,
        durationSeconds: 2,
        stepDelayMs: 10,
      });
      await expect(row(fresh.callSid)).toBeVisible({ timeout: 15_000 });
      await expect(page.getByTestId("call-row")).toHaveCount(4);
    });

    await test.step("at a phone's width: status first, and the timeline is reachable", async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`/dashboard/calls?sid=${fellBack.callSid}`);
      const first = row(fellBack.callSid).locator("td").first();
      await expect(first.getByTestId("call-status")).toBeVisible();
      await row(fellBack.callSid).getByRole("button", { name: "Timeline" }).scrollIntoViewIfNeeded();
      await row(fellBack.callSid).getByRole("button", { name: "Timeline" }).click();
      await expect(page.getByTestId("call-detail").getByTestId("call-detail-answer")).toHaveAttribute(
        "data-code",
        "fallback",
      );
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBeLessThanOrEqual(0);
      await page.setViewportSize({ width: 1280, height: 800 });
    });

    await test.step("the delivery log shows call.started as synchronous, with no redeliver", async () => {
      await page.goto("/dashboard/deliveries");
      const startedRow = page.locator('[data-testid="delivery-row"][data-event-type="call.started"]').first();
      await startedRow.getByRole("button", { name: "Details" }).click();
      const detail = page.getByTestId("delivery-detail");
      await expect(detail.getByTestId("delivery-answer-use")).toBeVisible();
      await expect(detail.getByRole("button", { name: "Redeliver" })).toHaveCount(0);
      await screenshots(page, "deliveries-call-started");
    });
  } finally {
    await backend.close();
  }
});
