import { defineConfig, devices } from "@playwright/test";

/**
 * The dashboard in real Chromium (Debian's package; Playwright downloads no
 * browser here) against the built app on a fresh database. Screenshots of each
 * page land in e2e-artifacts/screenshots (not committed) to look at.
 */
export default defineConfig({
  testDir: "e2e",
  outputDir: "e2e-artifacts/test-results",
  globalSetup: "./e2e/support/global-setup.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: [["list"], ["html", { outputFolder: "e2e-artifacts/report", open: "never" }]],
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
      ],
    },
  },
});
