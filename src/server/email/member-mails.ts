import { ROLE_DESCRIPTIONS, ROLE_LABELS, type Role } from "../../shared/roles";
import { env } from "../env";
import type { MailMessage } from "./mail-message";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * docs/decisions.md §18: the invitation. The link is the only way to join, so the mail says who invited whom to
 * what, with which role, how long the link works, and that ignoring it changes nothing.
 */
export function invitationMail(
  to: string,
  i: { token: string; accountName: string; invitedBy: string | null; role: Role; expiresAt: Date },
): MailMessage {
  const url = `${env().publicBaseUrl}/invitations/${encodeURIComponent(i.token)}`;
  const who = i.invitedBy ?? "A member";
  const intro = `${who} invited you to join ${i.accountName} on Routekit as ${ROLE_LABELS[i.role]}: ${ROLE_DESCRIPTIONS[i.role]}`;
  const notes = [
    `Open the link to sign in (or create your sign-in for ${to}) and join. It works until ${i.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC, once.`,
    "If you did not expect this, ignore this message: nothing happens without the link.",
  ];
  const action = `Join ${i.accountName}`;
  return {
    to,
    subject: `You are invited to join ${i.accountName} on Routekit`,
    text: `${intro}\n\n${url}\n\n${notes.join("\n\n")}\n`,
    html: `<!doctype html><html><body style="font-family:sans-serif">\n<p>${esc(intro)}</p>\n<p><a href="${esc(url)}">${esc(action)}</a></p>\n${notes.map((p) => `<p>${esc(p)}</p>`).join("\n")}\n</body></html>`,
  };
}
