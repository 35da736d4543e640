import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/**
 * The checks every page passes, in one place: no Content-Security-Policy
 * violation, no serious or critical axe-core finding, nothing wider than the
 * viewport. The CSP spec, the phone-layout screenshots and the every-page
 * sweep all use these.
 */

/**
 * Collects every CSP violation the page reports (its securitypolicyviolation
 * events, and console errors that name the policy), from before its first
 * script runs. Call once per page object, before the first navigation.
 */
export async function watchViolations(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeFunction("__reportViolation", (v: string) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      (window as unknown as { __reportViolation(v: string): void }).__reportViolation(
        `${location.pathname}: ${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`,
      ),
    );
  });
  page.on("console", (msg) => {
    if (msg.type() === "error" && /Content Security Policy|Refused to/i.test(msg.text()))
      violations.push(`${page.url()}: ${msg.text()}`);
  });
  return violations;
}

/** How far the page sticks out sideways (scrollWidth past clientWidth), in px; 0 when it fits. */
export function overflowOf(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/**
 * Nothing sticks out sideways at the viewport's width (tables scroll inside their own box).
 * Polled: a chart follows a resize on the next ResizeObserver round, not at once.
 */
export async function expectNoOverflow(page: Page, what: string): Promise<void> {
  const width = page.viewportSize()?.width;
  await expect
    .poll(() => overflowOf(page), { message: `${what} is wider than ${width} px`, timeout: 5_000 })
    .toBeLessThanOrEqual(0);
}

export type AxeFinding = { id: string; impact: string; help: string; targets: string[] };

/** The serious and critical axe-core findings on the page as it is now (WCAG 2.x A and AA, and best practice). */
export async function seriousAxeFindings(page: Page): Promise<AxeFinding[]> {
  const result = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
    .analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      id: v.id,
      impact: v.impact ?? "",
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
    }));
}

/**
 * Counts the page's requests in flight, from now on. `quiet()` resolves once none has been in flight for `ms`
 * (500 ms, Playwright's own network-idle window). Unlike waitForLoadState("networkidle"), which waits for
 * Chromium's one idle signal per document and never got it on Scalar's page in a run with two workers, this
 * also holds after the load and after same-document navigations. Call before the page's first navigation.
 */
export function watchRequests(page: Page): { quiet(ms?: number): Promise<void> } {
  let inFlight = 0;
  let lastChange = Date.now();
  page.on("request", () => {
    inFlight++;
    lastChange = Date.now();
  });
  const done = () => {
    inFlight--;
    lastChange = Date.now();
  };
  page.on("requestfinished", done);
  page.on("requestfailed", done);
  return {
    async quiet(ms = 500) {
      await expect
        .poll(() => inFlight === 0 && Date.now() - lastChange >= ms, {
          message: `no request in flight for ${ms} ms`,
          intervals: [100],
        })
        .toBe(true);
    },
  };
}
