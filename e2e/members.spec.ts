import { expect, test, type Page } from "@playwright/test";
import { createAccount, signedIn } from "../tests/support/accounts";
import { randomIp, screenshots, uniqueEmail } from "../tests/support/helpers";
import { expectNoOverflow, seriousAxeFindings, watchViolations } from "../tests/support/page-checks";

const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

/** The invitation link mailed to `to`, read from the development outbox (the e2e server has no SMTP). */
async function invitationLink(page: Page, to: string): Promise<string> {
  let link = "";
  await expect
    .poll(
      async () => {
        const html = await (await page.request.get("/dev/outbox")).text();
        const mail = html
          .split('data-testid="outbox-mail"')
          .slice(1)
          .find((m) => m.includes(`>${to}<`) && /invited you to join/.test(m));
        link = /href="([^"]*\/invitations\/[A-Za-z0-9_-]+)"/.exec(mail ?? "")?.[1] ?? "";
        return link;
      },
      { message: `invitation for ${to} in /dev/outbox`, timeout: 15_000 },
    )
    .not.toBe("");
  return link.replace(/&amp;/g, "&");
}

test("an owner invites a viewer; the mailed link signs them up and in, as a viewer who manages nothing", async ({
  page,
  browser,
}) => {
  const owner = await createAccount("members-owner", { paid: true });
  await signedIn(page, owner);
  await page.goto("/dashboard/members");
  await expect(page.getByTestId("members-table")).toContainText(owner.email);
  const email = uniqueEmail("invited");
  await page.getByLabel("Email").fill(email);
  await page.getByTestId("invite-role").selectOption("viewer");
  await expect(page.getByTestId("invite-role-description")).toContainText("Never sees a secret");
  await screenshots(page, "members");
  await page.getByTestId("invite-submit").click();
  await expect(page.getByTestId("invitation-row").filter({ hasText: email })).toBeVisible();

  const link = await invitationLink(page, email);
  const invitee = await browser.newContext({ extraHTTPHeaders: { "x-forwarded-for": randomIp() } });
  try {
    const joining = await invitee.newPage();
    const violations = await watchViolations(joining);
    await joining.goto(link);
    await expect(joining.getByTestId("invitation-summary")).toContainText("Viewer");
    // The sweep (every-page.spec.ts) sees only a refused link; the pending form is checked here, at both widths.
    for (const width of [390, 1280]) {
      await joining.setViewportSize({ width, height: 844 });
      await expectNoOverflow(joining, `the invitation page at ${width} px`);
      expect(await seriousAxeFindings(joining)).toEqual([]);
    }
    await joining.getByLabel("Choose a password").fill("a viewer's password");
    await screenshots(joining, "invitation");
    await joining.getByRole("button", { name: "Create my sign-in and join" }).click();
    await expect(joining).toHaveURL(/\/dashboard$/);

    // Signed in at the invited role: the members page explains instead of offering an invitation.
    await joining.goto("/dashboard/members");
    await expect(joining.getByTestId("members-not-allowed")).toContainText("Viewer");
    await expect(joining.getByTestId("invite-form")).toHaveCount(0);

    // The link worked once.
    await joining.goto(link);
    await expect(joining.getByTestId("invitation-unusable")).toContainText("already used");
    expect(violations).toEqual([]);
  } finally {
    await invitee.close();
  }

  await page.reload();
  const row = page.getByTestId("member-row").filter({ hasText: email });
  await expect(row.getByTestId("member-role-select")).toHaveValue("viewer");
  await expect(page.getByTestId("invitations-empty")).toBeVisible();
});
