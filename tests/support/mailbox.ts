import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { simpleParser } from "mailparser";
import { inject } from "vitest";

export type ReceivedMail = { file: string; to: string; from: string; subject: string; text: string; html: string };

const parsed = new Map<string, ReceivedMail>();

async function read(file: string): Promise<ReceivedMail> {
  let mail = parsed.get(file);
  if (!mail) {
    const m = await simpleParser(readFileSync(path.join(inject("smtpMailDir"), file)));
    const to = Array.isArray(m.to) ? m.to.map((a) => a.text).join(", ") : (m.to?.text ?? "");
    mail = {
      file,
      to,
      from: m.from?.text ?? "",
      subject: m.subject ?? "",
      text: m.text ?? "",
      html: typeof m.html === "string" ? m.html : "",
    };
    parsed.set(file, mail);
  }
  return mail;
}

/** Every message the test SMTP server received for `to`, oldest first. */
export async function mailTo(to: string): Promise<ReceivedMail[]> {
  const files = readdirSync(inject("smtpMailDir"))
    .filter((f) => f.endsWith(".eml"))
    .sort();
  const all = await Promise.all(files.map(read));
  return all.filter((m) => m.to.toLowerCase().includes(to.toLowerCase()));
}

/** Waits until `to` has received `count` messages whose subject matches. */
export async function waitForMail(
  to: string,
  subject: RegExp,
  opts: { count?: number; timeoutMs?: number } = {},
): Promise<ReceivedMail[]> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    const found = (await mailTo(to)).filter((m) => subject.test(m.subject));
    if (found.length >= (opts.count ?? 1)) return found;
    if (Date.now() > deadline) throw new Error(`no mail "${subject}" for ${to} (got ${found.length})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The token of the link to `pathname` in a message's plain-text part. */
export function tokenIn(mail: { text: string }, pathname: string): string {
  const match = new RegExp(`https?://[^\\s]+${pathname.replace(/\//g, "\\/")}\\?token=([A-Za-z0-9_%-]+)`).exec(
    mail.text,
  );
  if (!match) throw new Error(`no ${pathname} link in:\n${mail.text}`);
  return decodeURIComponent(match[1]!);
}
