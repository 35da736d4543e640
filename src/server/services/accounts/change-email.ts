import { db, isUniqueViolation } from "../../db/client";
import { AppError } from "../../errors/app-error";
import { emailChangeMail, emailChangeRequestedNotice } from "../../email/account-mails";
import { sendMail, sendMailInBackground } from "../../email/send-mail";
import { consumeAccountToken, issueAccountToken } from "./account-tokens";
import { requireCurrentPassword } from "./change-password";
import { enforceMailLimits } from "./mail-rate-limits";

/**
 * Asks to move the account to another address: nothing changes until the
 * link mailed to the new address is opened and confirmed. The current
 * password is required, so a borrowed session cannot take the account over;
 * the old address is told.
 */
export async function requestEmailChange(opts: {
  accountId: string;
  newEmail: string;
  currentPassword: string;
  ip: string;
}): Promise<{ pendingEmail: string }> {
  await requireCurrentPassword({ accountId: opts.accountId, password: opts.currentPassword, ip: opts.ip });
  const account = await db().account.findUniqueOrThrow({ where: { id: opts.accountId }, select: { email: true } });
  if (account.email === opts.newEmail) {
    throw new AppError("VALIDATION_FAILED", "That is already your address.", {
      details: [{ path: "newEmail", message: "is already your address" }],
    });
  }
  if (await db().account.findUnique({ where: { email: opts.newEmail }, select: { id: true } }))
    throw new AppError("EMAIL_TAKEN");
  await enforceMailLimits({ kind: "verify", email: opts.newEmail, ip: opts.ip });
  const token = await issueAccountToken({ accountId: opts.accountId, purpose: "CHANGE_EMAIL", email: opts.newEmail });
  await sendMail(emailChangeMail(opts.newEmail, token));
  sendMailInBackground(emailChangeRequestedNotice(account.email, opts.newEmail), "email change notice");
  return { pendingEmail: opts.newEmail };
}

/**
 * The link from the new address, confirmed: the address changes (verified, as
 * the link reached it) and every session ends, since sessions and tokens were
 * issued to the old identity; the person logs in again with the new address.
 */
export async function confirmEmailChange(opts: { token: string }): Promise<{ email: string }> {
  const { accountId, email } = await consumeAccountToken("CHANGE_EMAIL", opts.token);
  try {
    const updated = await db().account.updateMany({
      where: { id: accountId, deletedAt: null },
      data: { email, emailVerifiedAt: new Date(), sessionVersion: { increment: 1 } },
    });
    if (updated.count !== 1) throw new AppError("NOT_FOUND", "The account no longer exists.");
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("EMAIL_TAKEN", "Another account took this address in the meantime.");
    throw err;
  }
  return { email };
}
