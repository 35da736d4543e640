import { env } from "../env";
import type { MailMessage } from "./mail-message";

/**
 * The account mails: each says what the link does, how long it works, and
 * what to do if you did not ask. Plain text first; the HTML part is the same words.
 */
function link(pathname: string, token: string): string {
  return `${env().publicBaseUrl}${pathname}?token=${encodeURIComponent(token)}`;
}

function html(paragraphs: string[], url: string, action: string): string {
  const esc = (s: string) =>
    s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  const body = paragraphs.map((p) => `<p>${esc(p)}</p>`).join("\n");
  return `<!doctype html><html><body style="font-family:sans-serif">\n<p><a href="${esc(url)}">${esc(action)}</a></p>\n${body}\n</body></html>`;
}

/** A mail whose point is one link: what it is for, the link, then how long it works and what if you did not ask. */
function linkMail(m: {
  to: string;
  subject: string;
  intro: string;
  url: string;
  action: string;
  notes: string[];
}): MailMessage {
  return {
    to: m.to,
    subject: m.subject,
    text: `${m.intro}\n\n${m.url}\n\n${m.notes.join("\n\n")}\n`,
    html: html(m.notes, m.url, m.action),
  };
}

export function verificationMail(to: string, token: string): MailMessage {
  return linkMail({
    to,
    subject: "Confirm your email address for Routekit",
    intro: "Confirm that this address belongs to your Routekit account:",
    url: link("/verify-email", token),
    action: "Confirm your email address",
    notes: [
      "This link works for 48 hours, once.",
      "If you did not create a Routekit account, ignore this message: nothing happens without the link, and no account will be verified with your address.",
    ],
  });
}

export function passwordResetMail(to: string, token: string): MailMessage {
  return linkMail({
    to,
    subject: "Reset your Routekit password",
    intro:
      "Someone (hopefully you) asked to reset the password of the Routekit account for this address. Choose a new password here:",
    url: link("/reset-password", token),
    action: "Choose a new password",
    notes: [
      "This link works for 1 hour, once. Choosing a new password signs out every session of the account.",
      "If you did not ask to reset your password, ignore this message: your password stays as it is. If it keeps happening, someone may know your address; your account is safe as long as your mailbox is.",
    ],
  });
}

export function emailChangeMail(to: string, token: string): MailMessage {
  return linkMail({
    to,
    subject: "Confirm your new email address for Routekit",
    intro: "Someone (hopefully you) asked to make this the email address of a Routekit account. Confirm it here:",
    url: link("/verify-email/new-address", token),
    action: "Confirm your new address",
    notes: [
      "Your account's address changes only when this link is opened and confirmed. It works for 24 hours, once. Confirming signs out every session of the account; log in again with this address.",
      "If you did not ask for this, ignore this message: the account keeps its current address.",
    ],
  });
}

/** To the old address, so a takeover through a stolen session does not go unnoticed. */
export function emailChangeRequestedNotice(to: string, newEmail: string): MailMessage {
  const text = [
    `A change of your Routekit account's email address to ${newEmail} was requested. It takes effect only when the link sent to the new address is opened.`,
    'If this was not you, change your password now (Settings, or "Forgot password?" on the log-in page): that signs out every session and the pending change can no longer be confirmed.',
  ];
  return { to, subject: "Your Routekit email address is about to change", text: `${text.join("\n\n")}\n` };
}
