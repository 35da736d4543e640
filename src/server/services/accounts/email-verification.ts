import { db } from "../../db/client";
import { AppError } from "../../errors/app-error";
import { verificationMail } from "../../email/account-mails";
import { sendMail, sendMailInBackground } from "../../email/send-mail";
import { consumeAccountToken, issueAccountToken } from "./account-tokens";
import { enforceMailLimits } from "./mail-rate-limits";

/** Mails a verification link for the account's current address. */
export async function sendVerificationEmail(opts: { accountId: string; email: string }): Promise<void> {
  const token = await issueAccountToken({ accountId: opts.accountId, purpose: "VERIFY_EMAIL", email: opts.email });
  await sendMail(verificationMail(opts.email, token));
}

/** At sign-up: a mail server that is down must not stop the account being made (the dashboard offers "resend"). */
export async function startEmailVerification(opts: { accountId: string; email: string }): Promise<void> {
  const token = await issueAccountToken({ accountId: opts.accountId, purpose: "VERIFY_EMAIL", email: opts.email });
  sendMailInBackground(verificationMail(opts.email, token), "email verification");
}

/** The dashboard's "resend" button: limited per address and per client address. */
export async function resendVerificationEmail(opts: {
  accountId: string;
  ip: string;
}): Promise<{ sent: boolean; alreadyVerified: boolean }> {
  const account = await db().account.findUniqueOrThrow({
    where: { id: opts.accountId },
    select: { email: true, emailVerifiedAt: true },
  });
  if (account.emailVerifiedAt) return { sent: false, alreadyVerified: true };
  await enforceMailLimits({ kind: "verify", email: account.email, ip: opts.ip });
  await sendVerificationEmail({ accountId: opts.accountId, email: account.email });
  return { sent: true, alreadyVerified: false };
}

/** Opening the link and confirming: proves the account's owner holds the address the link went to. */
export async function verifyEmail(opts: { token: string }): Promise<{ verified: true; email: string }> {
  const { accountId, email } = await consumeAccountToken("VERIFY_EMAIL", opts.token);
  // A link for an address the account no longer has proves nothing about the current one.
  const updated = await db().account.updateMany({
    where: { id: accountId, email, deletedAt: null },
    data: { emailVerifiedAt: new Date() },
  });
  if (updated.count !== 1)
    throw new AppError("VALIDATION_FAILED", "This link is for an address the account no longer uses.", {
      details: [{ path: "token", message: "for another address" }],
    });
  return { verified: true, email };
}
