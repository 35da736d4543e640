import { metrics } from "../metrics/metrics";
import nodemailer, { type Transporter } from "nodemailer";
import { env } from "../env";
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
export async function sendMail(message: MailMessage, opts: { messageId?: string } = {}): Promise<void> {
  const from = senderAddress();
  const smtpUrl = env().smtpUrl;
  try {
    if (!smtpUrl) await writeToOutbox(from, message);
    else
      await transport(smtpUrl).sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        ...(opts.messageId && { messageId: `<${opts.messageId}@routekit>` }),
      });
  } catch (err) {
    metrics().mails.inc({ outcome: "failed" });
    throw err;
  }
  metrics().mails.inc({ outcome: "sent" });
}
