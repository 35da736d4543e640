import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { defineConfig, devices } from "@playwright/test";

/**
 * The dashboard in real Chromium (Debian's package; Playwright downloads no
 * browser here) against the built app on a fresh database. Screenshots of each
 * page land in e2e-artifacts/screenshots (not committed) to look at.
 *
 * Two workers share the one server (issue #43): while one test waits on the
 * server, a callback or a poll, the other's page renders. Every test makes its
 * own account, so tests of different files never see each other's data. The
 * exception is Twilio: the server has one Twilio base URL, and the files that
 * start a simulator there (on E2E_TWILIO_PORT) get a project of their own that
 * runs one file at a time, beside the others.
 */
const E2E = new URL("e2e/", import.meta.url);
const TWILIO_FILES = readdirSync(E2E).filter(
  (f) => f.endsWith(".spec.ts") && readFileSync(new URL(f, E2E), "utf8").includes("E2E_TWILIO_PORT"),
);

/**
 * Chromium features to turn off on top of Playwright's own. Every new page opens a browser window, and each window
 * preloads the address bar's popup (a WebUI page in a renderer of its own) that headless never shows: 12 % of
 * Chromium's CPU over the dashboard, calls and settings specs. Chromium keeps only the last --disable-features it
 * is given, and Playwright passes one (chromiumSwitches.ts), so this one repeats Playwright's list, read from the
 * installed playwright-core; if that cannot be read, there is no second flag and Playwright's list stands.
 */
function disableFeatures(ours: string[]): string[] {
  try {
    const bundle = readFileSync(createRequire(import.meta.url).resolve("playwright-core/lib/coreBundle"), "utf8");
    const list = /\bdisabledFeatures = \[([\s\S]*?)\](?:\.filter\(Boolean\))?;/.exec(bundle)?.[1] ?? "";
    const playwrights = (list.replace(/\/\/.*$/gm, "").match(/"[^"]+"/g) ?? []).map((s) => JSON.parse(s) as string);
    if (playwrights.length === 0) throw new Error("its disabledFeatures list was not found");
    return [`--disable-features=${[...playwrights, ...ours].join(",")}`];
  } catch (err) {
    console.warn(`playwright.config.ts: not turning off ${ours.join(", ")}: ${err}`);
    return [];
  }
}

export default defineConfig({
  testDir: "e2e",
  outputDir: "e2e-artifacts/test-results",
  globalSetup: "./tests/support/browser-global-setup.ts",
  fullyParallel: false,
  workers: 2,
  retries: 0,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: [["list"], ["html", { outputFolder: "e2e-artifacts/report", open: "never" }]],
  projects: [
    { name: "twilio", testMatch: TWILIO_FILES, workers: 1 },
    { name: "dashboard", testIgnore: TWILIO_FILES },
  ],
  use: {
    ...devices["Desktop Chrome"],
    viewport: { width: 1280, height: 800 },
    // A failed test keeps its trace (DOM snapshots, network, console) without the screencast: filming every test
    // to throw the film away when it passes kept Chromium's compositor busy (a quarter of its CPU in a test that
    // clicks through the dashboard).
    trace: { mode: "retain-on-failure", screenshots: false },
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
        ...disableFeatures(["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"]),
      ],
    },
  },
});
