import { mkdirSync } from "node:fs";
import { expect, type Page } from "@playwright/test";
import { expectNoOverflow } from "./page-checks";

export const SCREENSHOT_DIR = "e2e-artifacts/screenshots";
const PHONE = { width: 390, height: 844 };

/**
 * Until the page has drawn two more frames: whatever the last event changed (a state update React commits, a
 * resize) is then on screen. A page Chromium does not paint (hidden) gives up after a second instead.
 */
export async function twoFrames(page: Page): Promise<void> {
  await page.evaluate(() =>
    Promise.race([
      new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
      new Promise((r) => setTimeout(r, 1000)),
    ]),
  );
}

/**
 * Headless Chromium can stall a full-page capture taken right after a resize,
 * before it has painted a frame at the new size: wait for two frames first,
 * and give a stalled capture one more try instead of the whole test's budget.
 */
async function shoot(page: Page, path: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await twoFrames(page);
    try {
      await page.screenshot({ path, fullPage: true, animations: "disabled", timeout: 15_000 });
      return;
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

/** The page as it is now, at desktop width and at a phone's, to look at after the run. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const desktop = page.viewportSize() ?? { width: 1280, height: 800 };
  await shoot(page, `${SCREENSHOT_DIR}/${name}-desktop.png`);
  await page.setViewportSize(PHONE);
  // Nothing may stick out sideways at a phone's width.
  await expectNoOverflow(page, name);
  await shoot(page, `${SCREENSHOT_DIR}/${name}-phone.png`);
  await page.setViewportSize(desktop);
}

/** A client address of its own (the server takes X-Forwarded-For), so the per-address log-in and register limits never trip. */
export function randomIp(): string {
  const b = () => 1 + Math.floor(Math.random() * 250);
  return `10.${b()}.${b()}.${b()}`;
}

export function uniqueEmail(tag: string): string {
  return `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** A US number nobody else in this database has registered. */
export function uniqueNumber(): string {
  return `+1415${String(2_000_000 + Math.floor(Math.random() * 7_999_999)).padStart(7, "0")}`;
}

/**
 * Sign up through the page, from a client address of its own; leaves the browser on the overview. Returns the
 * first API key shown. Only for tests about signing up: the rest make accounts over the API (accounts.ts).
 */
export async function signUp(page: Page, email: string, password: string): Promise<string> {
  await page.setExtraHTTPHeaders({ "x-forwarded-for": randomIp() });
  await page.goto("/signup");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign up" }).click();
  const key = (await page.getByTestId("signup-api-key").textContent())!.trim();
  await page.getByRole("button", { name: "Continue to the dashboard" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  return key;
}

/** The page as it is now, at the viewport it has (a phone-width test's own picture). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await shoot(page, `${SCREENSHOT_DIR}/${name}.png`);
}
