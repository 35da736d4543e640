import { expect, type Page, test } from "@playwright/test";
import pg from "pg";
import { api, apiResponse, createAccount, signedIn, type TestAccount } from "../tests/support/accounts";
import { randomIp, uniqueEmail, uniqueNumber } from "../tests/support/helpers";
import { overflowOf, seriousAxeFindings, watchViolations } from "../tests/support/page-checks";
import { seeds } from "../tests/support/seed";

/**
 * Issue 44 (docs/decisions.md §18): a person in two accounts signs in to their own, switches to the other with the
 * dashboard's switcher, sees there what a viewer may (no secret, no write control that works: each disabled with
 * its reason), and switches back. The membership is seeded: the invitation page is the members suite's subject.
 */
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

const PASSWORD = "correct horse battery";
const COMPANY = "Acme Roles";

let pool: pg.Pool;
test.beforeAll(() => {
  pool = new pg.Pool({ connectionString: process.env.E2E_DATABASE_URL, max: 1 });
});
test.afterAll(async () => {
  await pool.end();
});

/** An owner's account with a company name (the switcher shows it), paid, with a number, an endpoint and a key. */
async function ownerAccount(): Promise<TestAccount & { accountId: string; number: string }> {
  const email = uniqueEmail("roles-owner");
  const res = await fetch(`${BASE}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": randomIp() },
    body: JSON.stringify({ email, password: PASSWORD, companyName: COMPANY }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as {
    account: { id: string };
    apiKey: string;
    checkoutUrl: string;
    engineVoiceUrl: string;
  };
  const pay = await fetch(body.checkoutUrl, { method: "POST", redirect: "manual" });
  expect(pay.status).toBeLessThan(400);
  const number = uniqueNumber();
  await api(body.apiKey, "/api/phone-numbers", {
    method: "POST",
    body: {
      phoneNumber: number,
      onCallStartUrl: "https://api.example.com/calls/start",
      onCallEndUrl: "https://api.example.com/calls/end",
    },
  });
  await api(body.apiKey, "/api/webhook-endpoints", {
    method: "POST",
    body: { url: "https://api.example.com/events", eventTypes: ["call.ended"], description: "Pipeline" },
  });
  return { email, apiKey: body.apiKey, engineVoiceUrl: body.engineVoiceUrl, accountId: body.account.id, number };
}

/** The checks every page passes (issue 44: each page a viewer sees too), at a phone's width and a laptop's. */
async function pageChecks(page: Page, violations: string[], what: string) {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    const found = (await seriousAxeFindings(page)).map((f) => `${f.id}: ${f.help} — ${f.targets.join(", ")}`);
    expect(found, `${what} at ${width} px: serious axe findings`).toEqual([]);
    expect(await overflowOf(page), `${what} at ${width} px: wider than the viewport`).toBeLessThanOrEqual(0);
  }
  expect(violations.splice(0), `${what}: CSP violations`).toEqual([]);
}

const REASON = /Viewers can't .*: ask an owner or admin\./;

test("a viewer switches to the account they were added to, sees no secret and no usable write control, and switches back", async ({
  page,
}) => {
  test.setTimeout(240_000);
  const owner = await ownerAccount();
  const person = await createAccount("roles-viewer", { paid: false });
  const {
    rows: [user],
  } = await pool.query<{ id: string }>(`SELECT id FROM "User" WHERE email = $1`, [person.email]);
  expect(user, "the viewer's user row").toBeTruthy();
  await seeds(pool).membership({ accountId: owner.accountId, userId: user!.id, role: "viewer" });

  const violations = await watchViolations(page);
  // Signed in with their own password: the account they last used, their own.
  await signedIn(page, person);
  await page.goto("/dashboard");
  const switcher = page.getByTestId("account-switcher");
  await expect(switcher.getByTestId("current-account")).toHaveText(person.email);
  await expect(switcher.getByTestId("current-role")).toHaveText("Owner");
  await expect(page.getByTestId("account-email")).toHaveText(person.email);
  await pageChecks(page, violations, "the overview, two accounts");

  // The switcher: a labelled select and a button, a plain form post.
  const select = switcher.getByRole("combobox", { name: "Switch account" });
  // Both accounts, each with the role there (the server's order: selectOption finds each by its label).
  await expect(select.locator("option")).toHaveCount(2);
  await select.selectOption({ label: `${COMPANY} (Viewer)` });
  await switcher.getByRole("button", { name: "Switch" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(switcher.getByTestId("current-account")).toHaveText(COMPANY);
  await expect(switcher.getByTestId("current-role")).toHaveText("Viewer");
  // Still the same person.
  await expect(page.getByTestId("account-email")).toHaveText(person.email);

  // Numbers: the owner's number, every change disabled with the one reason.
  await page.goto("/dashboard/numbers");
  const row = page.getByTestId("number-row").filter({ hasText: owner.number });
  await expect(row).toBeVisible();
  await expect(page.getByText("Viewers can't change numbers: ask an owner or admin.").first()).toBeVisible();
  await expect(page.getByRole("button", { name: "Add number" })).toBeDisabled();
  for (const name of ["Edit", "Delete", "Send test event", "Simulate a call"])
    await expect(row.getByRole("button", { name }), name).toBeDisabled();
  await expect(page.getByRole("button", { name: "Add number" })).toHaveAttribute("aria-describedby", /.+/);
  await pageChecks(page, violations, "numbers as a viewer");

  // Keys: the owner's key with its role and maker; creating and revoking disabled; no full key anywhere.
  await page.goto("/dashboard/keys");
  const keyRow = page.getByTestId("api-key-row").first();
  await expect(keyRow).toBeVisible();
  await expect(keyRow.getByTestId("api-key-role-cell")).toHaveText("as Owner");
  await expect(keyRow.getByTestId("api-key-created-by")).toHaveText(owner.email);
  await expect(page.getByRole("button", { name: "Create key" })).toBeDisabled();
  await expect(keyRow.getByRole("button", { name: "Revoke" })).toBeDisabled();
  await expect(page.getByText(REASON).first()).toBeVisible();
  await expect(page.locator("main")).not.toContainText(owner.apiKey);
  await pageChecks(page, violations, "keys as a viewer");

  // Endpoints: no Show or Rotate secret at all, the rest disabled with the reason, no secret in the page.
  await page.goto("/dashboard/endpoints");
  const endpoint = page.getByTestId("endpoint-row").first();
  await expect(endpoint).toBeVisible();
  await expect(endpoint.getByRole("button", { name: "Show secret" })).toHaveCount(0);
  await expect(endpoint.getByRole("button", { name: "Rotate secret" })).toHaveCount(0);
  for (const name of ["Send test event", "Disable", "Delete"])
    await expect(endpoint.getByRole("button", { name }), name).toBeDisabled();
  await expect(page.getByRole("button", { name: "Add endpoint" })).toBeDisabled();
  await expect(page.getByTestId("endpoint-secrets-hidden")).toBeVisible();
  await expect(page.locator("body")).not.toContainText("whsec_");
  await pageChecks(page, violations, "endpoints as a viewer");

  // Deliveries: the account's signing secret is not there, and rotating it is closed.
  await page.goto("/dashboard/deliveries");
  await expect(page.getByTestId("secret-hidden")).toBeVisible();
  await expect(page.getByRole("button", { name: "Rotate secret" })).toBeDisabled();
  await expect(page.locator("body")).not.toContainText("whsec_");

  // Settings and billing: the owner's and admin's controls say so.
  await page.goto("/dashboard/settings");
  await expect(page.getByRole("button", { name: "Close my account for good" })).toBeDisabled();
  await expect(page.getByText("Viewers can't close the account: ask an owner.")).toBeVisible();
  await page.goto("/dashboard/billing");
  await expect(page.getByText("Viewers can't see or change billing: ask an owner or admin.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Open billing portal" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Save limits" })).toBeDisabled();
  await pageChecks(page, violations, "billing as a viewer");

  // The server stays the authority: the same person signed in to that account is refused a write.
  const login = await fetch(`${BASE}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": randomIp() },
    body: JSON.stringify({ email: person.email, password: PASSWORD, accountId: owner.accountId }),
  });
  expect(login.status).toBe(200);
  const { token } = (await login.json()) as { token: string };
  const refused = await apiResponse(token, "/api/api-keys", { method: "POST", body: { label: "nope" } });
  expect(refused.status).toBe(403);
  // And the owner's data is unchanged by any of it.
  const keys = await api<{ apiKeys: unknown[] }>(owner.apiKey, "/api/api-keys");
  expect(keys.apiKeys).toHaveLength(1);

  // Back to their own account: an owner again, every control open.
  await page.goto("/dashboard");
  await switcher.getByRole("combobox", { name: "Switch account" }).selectOption({ label: `${person.email} (Owner)` });
  await switcher.getByRole("button", { name: "Switch" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(switcher.getByTestId("current-account")).toHaveText(person.email);
  await expect(switcher.getByTestId("current-role")).toHaveText("Owner");
  await page.goto("/dashboard/keys");
  await expect(page.getByRole("button", { name: "Create key" })).toBeEnabled();
  await expect(page.getByText(REASON)).toHaveCount(0);
  expect((await apiResponse(person.apiKey, "/api/account")).status).toBe(200);
});

test("someone in one account sees the account and their role, and no switcher", async ({ page }) => {
  const account = await createAccount("roles-single", { paid: false });
  await signedIn(page, account);
  await page.goto("/dashboard");
  const switcher = page.getByTestId("account-switcher");
  await expect(switcher.getByTestId("current-account")).toHaveText(account.email);
  await expect(switcher.getByTestId("current-role")).toHaveText("Owner");
  await expect(switcher.getByRole("combobox")).toHaveCount(0);
});

test("a viewer reads a number's shadow report, and may neither set a shadow nor replay a call", async ({ page }) => {
  test.setTimeout(180_000);
  const owner = await ownerAccount();
  const person = await createAccount("roles-shadow-viewer", { paid: false });
  const {
    rows: [user],
  } = await pool.query<{ id: string }>(`SELECT id FROM "User" WHERE email = $1`, [person.email]);
  await seeds(pool).membership({ accountId: owner.accountId, userId: user!.id, role: "viewer" });
  const seeded = await seeds(pool).call({ accountId: owner.accountId, toNumber: owner.number });
  const violations = await watchViolations(page);
  await signedIn(page, person);
  await page.goto("/dashboard");
  const switcher = page.getByTestId("account-switcher");
  await switcher.getByRole("combobox", { name: "Switch account" }).selectOption({ label: `${COMPANY} (Viewer)` });
  await switcher.getByRole("button", { name: "Switch" }).click();
  await expect(switcher.getByTestId("current-role")).toHaveText("Viewer");
  await page.goto("/dashboard/numbers");
  const row = page.getByTestId("number-row").filter({ hasText: owner.number });

  // The number's Shadow tab (docs/decisions.md §23): the report is there to read; setting a shadow is disabled
  // with the reason the numbers page gives.
  const { phoneNumbers } = await api<{ phoneNumbers: { id: string }[] }>(owner.apiKey, "/api/phone-numbers");
  await row.getByRole("link", { name: "Shadow" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/numbers/${phoneNumbers[0]!.id}/shadow$`));
  await expect(page.getByTestId("shadow-report")).toBeVisible();
  const shadowForm = page.getByTestId("shadow-form");
  await expect(shadowForm.getByLabel("Shadow URL")).toBeDisabled();
  await expect(shadowForm.getByRole("button", { name: "Start shadowing" })).toBeDisabled();
  await expect(shadowForm.getByRole("button", { name: "Start shadowing" })).toHaveAttribute("aria-describedby", /.+/);
  await expect(shadowForm.getByText("Viewers can't change numbers: ask an owner or admin.")).toBeVisible();
  await pageChecks(page, violations, "a number's Shadow tab as a viewer");

  // A call's replay: the action is disabled with its reason.
  await page.goto(`/dashboard/calls?call=${seeded.callSid}`);
  const replay = page.getByTestId("replay-call");
  await expect(replay.getByRole("button", { name: "Replay against…" })).toBeDisabled();
  await expect(replay.getByText("Viewers can't replay calls: ask an owner or admin.")).toBeVisible();
  await pageChecks(page, violations, "a call's page as a viewer");
});
