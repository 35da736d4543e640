import { db } from "../../db/client";
import { hashPassword } from "../../auth/password";
import { passwordChangedNotice, passwordResetMail } from "../../email/account-mails";
import { queueMail } from "../../email/queue-mail";
import { logger } from "../../logger";
import { accountForLinks, consumeAccountToken, issueAccountToken, retireAccountTokens } from "./account-tokens";
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
  // The person with that address (a closed account's last user keeps only an alias, so is never found here).
  const user = await db().user.findUnique({ where: { email }, select: { id: true, lastAccountId: true } });
  if (!user) return;
  // The link names the account they would sign in to; one who belongs to no open account cannot sign in at all.
  const accountId = await accountForLinks(user.id, user.lastAccountId);
  if (!accountId) return;
  await issueAccountToken({
    userId: user.id,
    accountId,
    purpose: "RESET_PASSWORD",
    email,
    mail: (token) => ({ kind: "password-reset", messages: [passwordResetMail(email, token)] }),
  });
}

/**
 * A new password from the mailed link: every session and login token of the
 * person ends, in every account (the user's session version moves), a pending
 * change of address is dropped, and the address counts as verified, since the
 * link reached it.
 */
export async function resetPassword(opts: { token: string; password: string }): Promise<{ reset: true }> {
  // The link first: a made-up token costs one indexed update, never a password hash.
  const { userId, email } = await consumeAccountToken("RESET_PASSWORD", opts.token);
  const passwordHash = await hashPassword(opts.password);
  await db().user.update({
    where: { id: userId },
    data: { passwordHash, sessionVersion: { increment: 1 } },
  });
  // Only if the address is still the one the link went to: a link proves nothing about a newer one.
  await db().user.updateMany({
    where: { id: userId, email, emailVerifiedAt: null },
    data: { emailVerifiedAt: new Date() },
  });
  await retireAccountTokens(userId, ["RESET_PASSWORD", "CHANGE_EMAIL"]);
  await queueMail(passwordChangedNotice(email), { kind: "password-changed" });
  return { reset: true };
}
