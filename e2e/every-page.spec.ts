import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { type BrowserContext, expect, test, type Page } from "@playwright/test";
import { simulateInboundCall } from "../src/twilio-simulator/twilio-simulator";
import { startReceiver } from "../tests/support/receiver";
import { api, createAccount, type Session, sessionOf, type TestAccount } from "../tests/support/accounts";
import { uniqueNumber } from "../tests/support/helpers";
import { overflowOf, seriousAxeFindings, watchViolations, type AxeFinding } from "../tests/support/page-checks";

/**
 * Issue 30: every page the service serves a browser, at a phone's width (390 px) and a laptop's (1280 px), with
 * no Content-Security-Policy violation, no serious or critical axe-core finding and nothing wider than the
 * viewport. The embedded API reference (/docs, Scalar's page) is axe-checked and reported, not failed: its
 * markup is not ours. The list of pages is checked against src/app, so a new page cannot be left out.
 */
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });
// Each page's check stands alone (the seeded account is only read): the pages spread over the workers, each of
// which seeds its own account once (beforeAll), rather than one worker taking all thirty.
test.describe.configure({ mode: "parallel" });

const WIDTHS = [390, 1280] as const;

/** How each page of src/app is reached; `{…}` fills in from the seeded account. */
type Visit = { route: string; url: string; ready?: (page: Page) => Promise<unknown>; ours?: false };

const PUBLIC: Visit[] = [
  { route: "/", url: "/" },
  { route: "/login", url: "/login" },
  { route: "/signup", url: "/signup" },
  { route: "/signup/welcome", url: "/signup/welcome" },
  { route: "/forgot-password", url: "/forgot-password" },
  { route: "/reset-password", url: "/reset-password?token=not-a-token" },
  { route: "/verify-email", url: "/verify-email?token=not-a-token" },
  { route: "/verify-email/new-address", url: "/verify-email/new-address?token=not-a-token" },
  { route: "/invitations/[token]", url: "/invitations/not-a-token" },
  { route: "/billing/done", url: "/billing/done?checkout=success" },
  { route: "/billing/checkout/[token]", url: "{checkout}" },
  { route: "/billing/portal/[token]", url: "{portal}" },
  { route: "/dev/outbox", url: "/dev/outbox" },
  { route: "(not found)", url: "/no-such-page" },
  {
    route: "/docs",
    url: "/docs",
    ours: false,
    // At a phone's width Scalar folds its sidebar away: its title is what both widths show.
    ready: (page) =>
      expect(page.getByRole("heading", { name: "Routekit API", level: 1 })).toBeVisible({ timeout: 30_000 }),
  },
];

const DASHBOARD: Visit[] = [
  { route: "/dashboard", url: "/dashboard" },
  { route: "/dashboard/twilio", url: "/dashboard/twilio" },
  { route: "/dashboard/numbers", url: "/dashboard/numbers" },
  { route: "/dashboard/numbers/[id]", url: "/dashboard/numbers/{numberId}" },
  { route: "/dashboard/numbers/[id]/shadow", url: "/dashboard/numbers/{numberId}/shadow" },
  { route: "/dashboard/calls", url: "/dashboard/calls" },
  { route: "/dashboard/calls", url: "/dashboard/calls?call={callSid}" },
  { route: "/dashboard/deliveries", url: "/dashboard/deliveries" },
  { route: "/dashboard/deliveries", url: "/dashboard/deliveries?delivery={deliveryId}" },
  { route: "/dashboard/endpoints", url: "/dashboard/endpoints" },
  { route: "/dashboard/alerts", url: "/dashboard/alerts" },
  { route: "/dashboard/keys", url: "/dashboard/keys" },
  { route: "/dashboard/audit", url: "/dashboard/audit" },
  { route: "/dashboard/members", url: "/dashboard/members" },
  { route: "/dashboard/billing", url: "/dashboard/billing" },
  { route: "/dashboard/setup", url: "/dashboard/setup" },
  { route: "/dashboard/settings", url: "/dashboard/settings" },
  { route: "/dashboard/security", url: "/dashboard/security" },
  { route: "/dashboard/find", url: "/dashboard/find?q=nothing-by-this-name" },
  { route: "/dashboard/[...missing]", url: "/dashboard/no-such-page" },
];

/** Route handlers that answer with a page (the rest answer forms, the API or assets). */
const HTML_ROUTE_HANDLERS = ["/billing/checkout/[token]", "/billing/portal/[token]", "/docs"];

/** Every page.tsx under src/app, and every route handler that serves a page, as its route. */
function appRoutes(): string[] {
  const root = join(process.cwd(), "src", "app");
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name === "page.tsx" || name === "route.ts") {
        const segments = relative(root, dir)
          .split(sep)
          .filter((s) => s && !/^\(.*\)$/.test(s));
        const route = `/${segments.join("/")}`;
        if (name === "page.tsx" || HTML_ROUTE_HANDLERS.includes(route)) found.push(route);
      }
    }
  };
  walk(root);
  return [...new Set(found)].sort();
}

test("the sweep's list names every page in src/app", () => {
  const listed = new Set([...PUBLIC, ...DASHBOARD].map((v) => v.route));
  expect(appRoutes().filter((r) => !listed.has(r))).toEqual([]);
});

type Seed = Record<string, string>;
let paid: TestAccount;
let unpaid: TestAccount;
const seed: Seed = {};
let backend: Awaited<ReturnType<typeof startReceiver>>;

/** The paid account's session cookies: logged in once, then given to the signed-in browser context. */
let session: Session = [];

/**
 * Two browser contexts per worker, one signed out and one with the session, and each visit a new page in one of
 * them: the sweep only reads, and a fresh context for each of its thirty pages cost each one a cold start (a new
 * renderer compiling the app's scripts again, with an empty cache): a quarter of the sweep's CPU time.
 */
const contexts: { signedOut?: BrowserContext; signedIn?: BrowserContext } = {};
let visiting: Page | undefined;
async function visitPage(which: keyof typeof contexts): Promise<Page> {
  visiting = await contexts[which]!.newPage();
  return visiting;
}

test.beforeAll(async ({ browser }, workerInfo) => {
  backend = await startReceiver((r, res) =>
    r.path === "/start" || r.path === "/shadow"
      ? res
          .writeHead(200, { "content-type": "text/xml" })
          .end(r.path === "/start" ? "<Response><Say>Hi</Say></Response>" : "<Response><Say>Hello</Say></Response>")
      : res.writeHead(r.path === "/end" ? 500 : 200).end("ok"),
  );
  paid = await createAccount("sweep", { paid: true });
  unpaid = await createAccount("sweep-unpaid", { paid: false });
  const number = uniqueNumber();
  const registered = await api(paid.apiKey, "/api/phone-numbers", {
    method: "POST",
    body: { phoneNumber: number, onCallStartUrl: backend.url("/start"), onCallEndUrl: backend.url("/end") },
  });
  seed.numberId = registered.phoneNumber.id;
  // docs/decisions.md §23: a shadow that answers differently, so the Shadow tab shows a call's two answers.
  await api(paid.apiKey, `/api/phone-numbers/${seed.numberId}`, {
    method: "PATCH",
    body: { shadow: { onCallStartUrl: backend.url("/shadow") } },
  });
  const played = await simulateInboundCall({
    engineUrl: paid.engineVoiceUrl,
    from: "+14155550100",
    to: number,
    durationSeconds: 61,
    stepDelayMs: 10,
  });
  seed.callSid = played.callSid;
  await expect
    .poll(async () => (await api(paid.apiKey, "/api/webhook-deliveries?limit=1")).deliveries[0]?.id ?? "", {
      timeout: 30_000,
    })
    .not.toBe("");
  seed.deliveryId = (await api(paid.apiKey, "/api/webhook-deliveries?limit=1")).deliveries[0].id;
  seed.checkout = (await api(unpaid.apiKey, "/api/billing/checkout", { method: "POST" })).url;
  seed.portal = (await api(paid.apiKey, "/api/billing/portal", { method: "POST" })).url;
  session = await sessionOf(paid);
  // What the page fixture's context would get from the config (Desktop Chrome at 1280 px).
  const { userAgent, viewport, deviceScaleFactor, isMobile, hasTouch } = workerInfo.project.use;
  const options = { userAgent, viewport, deviceScaleFactor, isMobile, hasTouch, baseURL: BASE };
  contexts.signedOut = await browser.newContext(options);
  contexts.signedIn = await browser.newContext({ ...options, storageState: { cookies: session, origins: [] } });
});
// After the failure screenshot (taken when the test function ends), before the next visit.
test.afterEach(async () => {
  await visiting?.close();
  visiting = undefined;
});
test.afterAll(async () => {
  await contexts.signedOut?.close();
  await contexts.signedIn?.close();
  await backend?.close();
});

const fill = (url: string) => url.replace(/\{(\w+)\}/g, (_, k: string) => seed[k] ?? `{${k}}`);

/**
 * Visits one page at each width. Returns what fails it and, for a page that is not ours, what is only
 * reported. CSP violations fail every page, ours or not.
 */
async function check(page: Page, visit: Visit, violations: string[]) {
  const problems: string[] = [];
  const reported: string[] = [];
  const url = fill(visit.url);
  // One load per page, at a phone's width, then the same page widened to a laptop's (as a rotated tablet or a
  // resized window would): two loads per page cost CI a minute and a half for nothing more.
  for (const [i, width] of WIDTHS.entries()) {
    await page.setViewportSize({ width, height: 844 });
    if (i === 0) {
      await page.goto(url);
      if (visit.ready) await visit.ready(page);
      else await expect(page.locator("h1, h2").first()).toBeVisible();
      // Let late work (hydration, queries) finish; pages that poll never go idle, so only briefly.
      await page.waitForLoadState("networkidle", { timeout: 5_000 }).catch(() => undefined);
    } else if (visit.ready) await visit.ready(page);
    const found = (await seriousAxeFindings(page)).map(
      (f: AxeFinding) => `${width} px: axe ${f.impact} ${f.id}: ${f.help} — ${f.targets.join(", ")}`,
    );
    const overflow = await overflowOf(page);
    if (overflow > 0) found.push(`${width} px: ${overflow} px wider than the viewport`);
    (visit.ours === false ? reported : problems).push(...found);
  }
  problems.push(...violations.splice(0).map((v) => `CSP: ${v}`));
  return { problems, reported };
}

for (const visit of PUBLIC)
  test(`${visit.url} at 390 and 1280 px: no CSP violation, ${visit.ours === false ? "axe findings reported" : "no serious axe finding"}, no overflow`, async () => {
    test.setTimeout(300_000);
    const info = test.info();
    const page = await visitPage("signedOut");
    const violations = await watchViolations(page);
    const { problems, reported } = await check(page, visit, violations);
    if (reported.length) {
      await info.attach("reported, not failed (not our markup)", { body: reported.join("\n") });
      console.log(`${visit.url}, reported and not failed (not our markup):\n${reported.join("\n")}`);
    }
    expect(problems).toEqual([]);
  });

for (const visit of DASHBOARD)
  test(`${visit.url} at 390 and 1280 px: no CSP violation, no serious axe finding, no overflow`, async () => {
    test.setTimeout(300_000);
    const page = await visitPage("signedIn");
    const violations = await watchViolations(page);
    const { problems } = await check(page, visit, violations);
    expect(problems).toEqual([]);
  });
