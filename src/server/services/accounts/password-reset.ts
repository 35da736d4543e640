import { db } from "../../db/client";
import { hashPassword } from "../../auth/password";
import { passwordResetMail } from "../../email/account-mails";
import { sendMailInBackground } from "../../email/send-mail";
import { consumeAccountToken, issueAccountToken, retireAccountTokens } from "./account-tokens";
import { enforceMailLimits } from "./mail-rate-limits";

/**
 * "Forgot password?": the same answer, status and body whether or not the
 * address has an account. The mail leaves after the answer, so the time to
 * answer does not tell either (one indexed read, plus one small write when
 * the account exists).
 */
export async function requestPasswordReset(opts: { email: string; ip: string }): Promise<{ requested: true }> {
  await enforceMailLimits({ kind: "reset", email: opts.email, ip: opts.ip });
  const account = await db().account.findUnique({ where: { email: opts.email }, select: { id: true, deletedAt: true } });
  if (account && !account.deletedAt) {
    const token = await issueAccountToken({ accountId: account.id, purpose: "RESET_PASSWORD", email: opts.email });
    sendMailInBackground(passwordResetMail(opts.email, token), "password reset");
  }
  return { requested: true };
}

/**
 * A new password from the mailed link: every session and login token ends
 * (the session version moves), a pending change of address is dropped, and the
 * address counts as verified, since the link reached it.
 */
export async function resetPassword(opts: { token: string; password: string }): Promise<{ reset: true }> {
  // The link first: a made-up token costs one indexed update, never a password hash.
  const { accountId, email } = await consumeAccountToken("RESET_PASSWORD", opts.token);
  const passwordHash = await hashPassword(opts.password);
  await db().account.updateMany({
    where: { id: accountId, deletedAt: null },
    data: { passwordHash, sessionVersion: { increment: 1 } },
  });
  await db().account.updateMany({ where: { id: accountId, email, emailVerifiedAt: null }, data: { emailVerifiedAt: new Date() } });
  await retireAccountTokens(accountId, ["RESET_PASSWORD", "CHANGE_EMAIL"]);
  return { reset: true };
}
