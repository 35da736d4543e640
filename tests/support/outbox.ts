import { expect, type Page } from "@playwright/test";

/**
 * The e2e server runs without SMTP_URL, so its mail is in the development
 * outbox; the browser (on loopback) reads it at /dev/outbox like a developer would.
 */
export async function linkFromOutbox(
  page: Page,
  to: string,
  subject: RegExp,
  pathname: string,
  /** Wait until this many such mails are there (a resent link), and take the newest. */
  opts: { count?: number } = {},
): Promise<string> {
  const wanted = opts.count ?? 1;
  // Mail goes out from a job: wait for it on the page's server-rendered HTML, fetched without a browser tab
  // (cheap), then open the page once and read the link there. Loading the page on every poll cost a page load
  // per second of the job's delay.
  await expect
    .poll(
      async () => {
        const html = await (await page.request.get("/dev/outbox")).text();
        return html
          .split('data-testid="outbox-mail"')
          .slice(1)
          .filter((mail) => mail.includes(`>${to}<`) && subject.test(/<h2[^>]*>([^<]*)<\/h2>/.exec(mail)?.[1] ?? ""))
          .length;
      },
      { message: `mail "${subject}" for ${to} in /dev/outbox's HTML`, timeout: 15_000 },
    )
    .toBeGreaterThanOrEqual(wanted);
  let href: string | null = null;
  await expect
    .poll(
      async () => {
        await page.goto("/dev/outbox");
        const mails = page
          .getByTestId("outbox-mail")
          .filter({ hasText: to })
          .filter({ has: page.getByRole("heading", { name: subject }) });
        // Newest first (outbox.ts).
        if ((await mails.count()) < wanted) return null;
        const mail = mails.first();
        href = await mail.locator(`a[href*="${pathname}?token="]`).first().getAttribute("href");
        return href;
      },
      { message: `mail "${subject}" for ${to}`, timeout: 15_000 },
    )
    .not.toBeNull();
  return href!;
}
