import { db } from "../../db/client";
import { hashPassword } from "../../auth/password";
import { passwordChangedNotice, passwordResetMail } from "../../email/account-mails";
import { queueMail } from "../../email/queue-mail";
import { logger } from "../../logger";
import { consumeAccountToken, issueAccountToken, retireAccountTokens } from "./account-tokens";
import { enforceMailLimits } from "./mail-rate-limits";

/**
 * "Forgot password?": the same answer, status and body whether or not the
 * address has an account. The answer waits only for the mail limits, which
 * take the same buckets for every address; looking the address up, issuing
 * the link and sending the mail all happen after it, so the time to answer
 * cannot tell whether the address has an account (docs/decisions.md §20).
 */
export async function requestPasswordReset(opts: { email: string; ip: string }): Promise<{ requested: true }> {
  await enforceMailLimits({ kind: "reset", email: opts.email, ip: opts.ip });
  setImmediate(() => {
    mailResetLink(opts.email).catch((err: unknown) =>
      logger().error(
        { err: { message: err instanceof Error ? err.message : String(err) } },
        "password reset link failed",
      ),
    );
  });
  return { requested: true };
}

async function mailResetLink(email: string): Promise<void> {
  const account = await db().account.findUnique({ where: { email }, select: { id: true, deletedAt: true } });
  if (!account || account.deletedAt) return;
  await issueAccountToken({
    accountId: account.id,
    purpose: "RESET_PASSWORD",
    email,
    mail: (token) => ({ kind: "password-reset", messages: [passwordResetMail(email, token)] }),
  });
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
  await db().account.updateMany({
    where: { id: accountId, email, emailVerifiedAt: null },
    data: { emailVerifiedAt: new Date() },
  });
  await retireAccountTokens(accountId, ["RESET_PASSWORD", "CHANGE_EMAIL"]);
  await queueMail(passwordChangedNotice(email), { kind: "password-changed" });
  return { reset: true };
}
