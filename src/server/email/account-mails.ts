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

/** docs/decisions.md §17: a usage threshold the month crossed, with where to see and change the limits. */
export function usageThresholdMail(
  to: string,
  t: { threshold: number; monthlyBudget: number; spent: number; month: string },
): MailMessage {
  const url = `${env().publicBaseUrl}/dashboard/billing`;
  const usd = (n: number) => `$${n.toFixed(2)}`;
  const notes = [
    `Your usage cost for ${t.month} (UTC) is ${usd(t.spent)}, ${t.threshold} % of your monthly budget of ${usd(t.monthlyBudget)}. This is the only message about this threshold this month.`,
    "With the hard cap on, new calls are refused once the budget is reached; calls already live go on. Raise the budget, change the thresholds or turn the hard cap on or off on the Billing page.",
  ];
  return {
    to,
    subject: `Routekit usage reached ${t.threshold} % of your ${t.month} budget`,
    text: `${notes.join("\n\n")}\n\n${url}\n`,
    html: html(notes, url, "See usage and limits"),
  };
}

/** docs/decisions.md §16: one alert, with what it is about and what to do (switchable per kind in Settings). */
export function alertMail(
  to: string,
  a: {
    title: string;
    type: string;
    subject: { type: string; id: string; url?: string };
    since: string;
    howToFix: string;
  },
): MailMessage {
  const url = `${env().publicBaseUrl}/dashboard/alerts`;
  const about = a.subject.url ? `${a.subject.type} ${a.subject.url}` : `${a.subject.type} ${a.subject.id}`;
  const notes = [
    `${a.title} (${a.type}), about ${about}, since ${a.since}.`,
    `What to do: ${a.howToFix}`,
    "At most one alert of a kind about the same thing per hour. Turn this kind of email off in Settings.",
  ];
  return {
    to,
    subject: `Routekit alert: ${a.title}`,
    text: `${notes.join("\n\n")}\n\n${url}\n`,
    html: html(notes, url, "See alerts"),
  };
}

/** A notice with no link to act on: what happened, and what to do if it was not you. */
function notice(to: string, subject: string, paragraphs: string[]): MailMessage {
  const url = `${env().publicBaseUrl}/login`;
  return { to, subject, text: `${paragraphs.join("\n\n")}\n`, html: html(paragraphs, url, "Log in to Routekit") };
}

/** Issue #30: the password changed (in Settings or with a reset link). */
export function passwordChangedNotice(to: string): MailMessage {
  return notice(to, "Your Routekit password was changed", [
    "The password of your Routekit account was just changed, and every other session was signed out.",
    'If this was not you, reset your password now ("Forgot password?" on the log-in page): the link goes to this address.',
  ]);
}

/** Issue #30: to the OLD address once the change is confirmed, so a takeover is noticed where the owner still reads. */
export function emailChangedNotice(to: string, newEmail: string): MailMessage {
  return notice(to, "Your Routekit email address was changed", [
    `The email address of your Routekit account is now ${newEmail}. Every session was signed out; log in with the new address.`,
    "If this was not you, someone who knew your password moved your account to another address: contact Routekit support at once, and change the password of this mailbox.",
  ]);
}

/** Issue #30: Stripe reports an invoice of the account's subscription paid (a charge of more than nothing). */
export function paymentReceivedMail(
  to: string,
  p: { amount: number; currency: string; invoiceId: string | null; paidAt: Date },
): MailMessage {
  const url = `${env().publicBaseUrl}/dashboard/billing`;
  const amount = `${p.amount.toFixed(2)} ${p.currency.toUpperCase()}`;
  const notes = [
    `We received your payment of ${amount} on ${p.paidAt.toISOString().slice(0, 10)} (UTC)${p.invoiceId ? `, for invoice ${p.invoiceId}` : ""}. Thank you.`,
    "Your invoices and receipts are in the billing portal, reached from the Billing page.",
  ];
  return {
    to,
    subject: `Routekit payment received: ${amount}`,
    text: `${notes.join("\n\n")}\n\n${url}\n`,
    html: html(notes, url, "Open billing"),
  };
}

/** Issue #30: the account was closed for good. */
export function accountClosedNotice(to: string): MailMessage {
  return notice(to, "Your Routekit account was closed", [
    "Your Routekit account was closed: its numbers were released, its API keys revoked and its subscription cancelled. Its call history is kept.",
    "Closed is for good; you can sign up again with this address.",
  ]);
}
