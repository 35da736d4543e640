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
        if ((await mails.count()) < (opts.count ?? 1)) return null;
        const mail = mails.first();
        href = await mail.locator(`a[href*="${pathname}?token="]`).first().getAttribute("href");
        return href;
      },
      { message: `mail "${subject}" for ${to}`, timeout: 15_000 },
    )
    .not.toBeNull();
  return href!;
}
