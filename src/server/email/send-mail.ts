import nodemailer, { type Transporter } from "nodemailer";
import { env } from "../env";
import { logger } from "../logger";
import { remember } from "../runtime/remember";
import type { MailMessage } from "./mail-message";
import { writeToOutbox } from "./outbox";

/** The sender: no-reply at the public host, so replies never reach a person by accident. */
export function senderAddress(): string {
  const host = new URL(env().publicBaseUrl).hostname;
  return `Routekit <no-reply@${/^[\d.]+$|:/.test(host) ? "localhost" : host}>`;
}

/** One SMTP transport (and its connection pool) per process (runtime/remember.ts). */
function transport(smtpUrl: string): Transporter {
  return remember("mailTransport", () => nodemailer.createTransport(smtpUrl));
}

/** Whether mail really leaves this machine (SMTP_URL set) or lands in the local outbox. */
export function mailMode(): "smtp" | "outbox" {
  return env().smtpUrl ? "smtp" : "outbox";
}

/** Sends through SMTP_URL, or writes to the outbox. Never logs the body: it carries one-time links. */
export async function sendMail(message: MailMessage): Promise<void> {
  const from = senderAddress();
  const smtpUrl = env().smtpUrl;
  if (!smtpUrl) {
    await writeToOutbox(from, message);
    return;
  }
  await transport(smtpUrl).sendMail({
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
  });
}

/**
 * For requests that must answer the same whether or not mail goes out (a reset
 * for an unknown address): the send runs after the answer, and a failure is
 * logged without the message.
 */
export function sendMailInBackground(message: MailMessage, what: string): void {
  sendMail(message).catch((err: unknown) =>
    logger().error(
      { err: { message: err instanceof Error ? err.message : String(err) }, mail: what },
      "sending mail failed",
    ),
  );
}
