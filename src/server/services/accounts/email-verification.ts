import { db } from "../../db/client";
import { AppError } from "../../errors/app-error";
import { verificationMail } from "../../email/account-mails";
import { consumeAccountToken, issueAccountToken } from "./account-tokens";
import { enforceMailLimits } from "./mail-rate-limits";

/**
 * Mails a verification link for the user's current address, through the durable mail job: a mail server
 * that is down delays the mail (retried with backoff) and never fails the request or loses the link.
 * The address is the person's (docs/decisions.md §18); `accountId` is the account they are signed in to.
 */
async function sendVerificationEmail(opts: { userId: string; accountId: string; email: string }): Promise<void> {
  await issueAccountToken({
    userId: opts.userId,
    accountId: opts.accountId,
    purpose: "VERIFY_EMAIL",
    email: opts.email,
    mail: (token) => ({ kind: "verification", messages: [verificationMail(opts.email, token)] }),
  });
}

/** At sign-up: the same durable mail, so a mail server that is down never stops the account being made. */
export async function startEmailVerification(opts: {
  userId: string;
  accountId: string;
  email: string;
}): Promise<void> {
  await sendVerificationEmail(opts);
}

/** The dashboard's "resend" button: limited per address and per client address. */
export async function resendVerificationEmail(opts: {
  userId: string;
  accountId: string;
  ip: string;
}): Promise<{ sent: boolean; alreadyVerified: boolean }> {
  const user = await db().user.findUniqueOrThrow({
    where: { id: opts.userId },
    select: { email: true, emailVerifiedAt: true },
  });
  if (user.emailVerifiedAt) return { sent: false, alreadyVerified: true };
  await enforceMailLimits({ kind: "verify", email: user.email, ip: opts.ip });
  await sendVerificationEmail({ userId: opts.userId, accountId: opts.accountId, email: user.email });
  return { sent: true, alreadyVerified: false };
}

/** Opening the link and confirming: proves the person holds the address the link went to. */
export async function verifyEmail(opts: { token: string }): Promise<{ verified: true; email: string }> {
  const { userId, email } = await consumeAccountToken("VERIFY_EMAIL", opts.token);
  // A link for an address the user no longer has proves nothing about the current one.
  const updated = await db().user.updateMany({
    where: { id: userId, email },
    data: { emailVerifiedAt: new Date() },
  });
  if (updated.count !== 1)
    throw new AppError("VALIDATION_FAILED", "This link is for an address the account no longer uses.", {
      details: [{ path: "token", message: "for another address" }],
    });
  return { verified: true, email };
}
