import { mkdirSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { SCREENSHOT_DIR, twoFrames } from "../tests/support/helpers";
import { watchRequests } from "../tests/support/page-checks";

/**
 * The API reference in real Chromium: nothing is fetched from another origin
 * (no fonts.scalar.com, no telemetry, no proxy), Scalar's hosted-service
 * controls are gone, a link leads back to the dashboard, and body fields keep
 * the API's reading order rather than the alphabet's.
 */
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

test("/docs loads only from this origin, without Scalar's AI, MCP or deploy controls, with a way back to the dashboard", async ({
  page,
}) => {
  const origin = new URL(BASE).origin;
  const foreign: string[] = [];
  page.on("request", (req) => {
    const url = req.url();
    if (!/^(data|blob|about):/.test(url) && new URL(url).origin !== origin) foreign.push(url);
  });
  // Nothing may leave the machine either way; refusing keeps a stray request from waiting on a network that is not there.
  await page.route(
    (url) => url.origin !== origin,
    (route) => route.abort(),
  );
  const requests = watchRequests(page);

  await page.goto("/docs");
  await expect(page.getByRole("link", { name: /Liveness/ }).first()).toBeVisible({ timeout: 30_000 });

  const back = page.getByTestId("docs-dashboard-link");
  await expect(back).toBeVisible();
  await expect(back).toHaveAttribute("href", "/dashboard");

  // An operation with a body: its fields read in declaration order (phoneNumber first), not alphabetically.
  await page.goto("/docs#tag/phone-numbers/POST/api/phone-numbers");
  const operation = page.locator("section[id$='tag/phone-numbers/POST/api/phone-numbers']");
  await expect(operation.getByRole("heading", { name: /Register a phone number/ })).toBeVisible({ timeout: 30_000 });
  const fields = await operation
    .locator("[id*='POST/api/phone-numbers.body.']")
    .evaluateAll((els) => els.map((e) => e.id.split(".body.")[1]));
  expect(fields).toEqual([
    "phoneNumber",
    "onCallStartUrl",
    "onCallEndUrl",
    "onErrorUrl",
    "answerTimeoutMs",
    "fallback",
    "lastResort",
    "dailyMinuteCap",
    "listen",
    "configureTwilio",
  ]);
  await expect(operation.getByText(/Public HTTPS, checked again at delivery/).first()).toBeVisible();

  // Late requests and controls: once nothing is loading and the page has drawn what it has, they would be there.
  await requests.quiet();
  await twoFrames(page);
  for (const label of [/Ask AI/i, /Generate MCP/i, /Connect MCP/i, /^Deploy/i, /Developer Tools/i]) {
    await expect(page.getByText(label), String(label)).toHaveCount(0);
    await expect(page.getByRole("button", { name: label }), String(label)).toHaveCount(0);
  }

  // Still within reach after scrolling down to an operation.
  await expect(back).toBeInViewport();
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOT_DIR}/docs-desktop.png` });
  expect(foreign).toEqual([]);
});
