import { mkdirSync } from "node:fs";
import { expect, type Page } from "@playwright/test";

export const SCREENSHOT_DIR = "e2e-artifacts/screenshots";
const PHONE = { width: 390, height: 844 };

/** The page as it is now, at desktop width and at a phone's, to look at after the run. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const desktop = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  // Nothing may stick out sideways at a phone's width (tables scroll inside their own box).
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `${name} is wider than a phone`).toBeLessThanOrEqual(0);
  await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}-phone.png`, fullPage: true });
  await page.setViewportSize(desktop);
}

export function uniqueEmail(tag: string): string {
  return `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** A US number nobody else in this database has registered. */
export function uniqueNumber(): string {
  return `+1415${String(2_000_000 + Math.floor(Math.random() * 7_999_999)).padStart(7, "0")}`;
}

/** Sign up through the page; leaves the browser on the overview. Returns the first API key shown. */
export async function signUp(page: Page, email: string, password: string): Promise<string> {
  await page.goto("/signup");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign up" }).click();
  const key = (await page.getByTestId("signup-api-key").textContent())!.trim();
  await page.getByRole("button", { name: "Continue to the dashboard" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  return key;
}
