import { db, isUniqueViolation } from "../../db/client";
import { AppError } from "../../errors/app-error";
import { emailChangeMail, emailChangeRequestedNotice, emailChangedNotice } from "../../email/account-mails";
import { queueMail } from "../../email/queue-mail";
import { sqlTransaction } from "../../db/sql-transaction";
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
  // The link to the new address and the notice to the old one, both durable, both with the token.
  await issueAccountToken({
    accountId: opts.accountId,
    purpose: "CHANGE_EMAIL",
    email: opts.newEmail,
    mail: (token) => ({
      kind: "email-change",
      messages: [emailChangeMail(opts.newEmail, token), emailChangeRequestedNotice(account.email, opts.newEmail)],
    }),
  });
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
    // The change and the notice to the old address (issue #30) commit together.
    await sqlTransaction(async (trx) => {
      const before = await trx
        .selectFrom("Account")
        .select("email")
        .where("id", "=", accountId)
        .where("deletedAt", "is", null)
        .forUpdate()
        .executeTakeFirst();
      if (!before) throw new AppError("NOT_FOUND", "The account no longer exists.");
      await trx
        .updateTable("Account")
        .set((eb) => ({
          email,
          emailVerifiedAt: new Date(),
          sessionVersion: eb("sessionVersion", "+", 1),
          updatedAt: new Date(),
        }))
        .where("id", "=", accountId)
        .execute();
      if (before.email !== email)
        await queueMail(emailChangedNotice(before.email, email), { kind: "email-changed", trx });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("EMAIL_TAKEN", "Another account took this address in the meantime.");
    throw err;
  }
  return { email };
}
