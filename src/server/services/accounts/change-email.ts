import { db, isUniqueViolation } from "../../db/client";
import { AppError } from "../../errors/app-error";
import { emailChangeMail, emailChangeRequestedNotice, emailChangedNotice } from "../../email/account-mails";
import { queueMail } from "../../email/queue-mail";
import { sqlTransaction } from "../../db/sql-transaction";
import { consumeAccountToken, issueAccountToken } from "./account-tokens";
import { requireCurrentPassword } from "./change-password";
import { enforceMailLimits } from "./mail-rate-limits";

/**
 * Asks to move the person (the user, docs/decisions.md §18) to another address:
 * nothing changes until the link mailed to the new address is opened and
 * confirmed. The current password is required, so a borrowed session cannot
 * take the sign-in over; the old address is told.
 */
export async function requestEmailChange(opts: {
  userId: string;
  accountId: string;
  newEmail: string;
  currentPassword: string;
  ip: string;
}): Promise<{ pendingEmail: string }> {
  await requireCurrentPassword({ userId: opts.userId, password: opts.currentPassword, ip: opts.ip });
  const user = await db().user.findUniqueOrThrow({ where: { id: opts.userId }, select: { email: true } });
  if (user.email === opts.newEmail) {
    throw new AppError("VALIDATION_FAILED", "That is already your address.", {
      details: [{ path: "newEmail", message: "is already your address" }],
    });
  }
  // Taken by another person, or the contact address of an account (which registering with it would refuse too).
  const [otherUser, otherAccount] = await Promise.all([
    db().user.findUnique({ where: { email: opts.newEmail }, select: { id: true } }),
    db().account.findUnique({ where: { email: opts.newEmail }, select: { id: true } }),
  ]);
  if (otherUser || otherAccount) throw new AppError("EMAIL_TAKEN");
  await enforceMailLimits({ kind: "verify", email: opts.newEmail, ip: opts.ip });
  // The link to the new address and the notice to the old one, both durable, both with the token.
  await issueAccountToken({
    userId: opts.userId,
    accountId: opts.accountId,
    purpose: "CHANGE_EMAIL",
    email: opts.newEmail,
    mail: (token) => ({
      kind: "email-change",
      messages: [emailChangeMail(opts.newEmail, token), emailChangeRequestedNotice(user.email, opts.newEmail)],
    }),
  });
  return { pendingEmail: opts.newEmail };
}

/**
 * The link from the new address, confirmed: the user's address changes
 * (verified, as the link reached it) and every session of the person ends,
 * in every account, since sessions and tokens were issued to the old
 * identity; they log in again with the new address. The accounts they own
 * whose contact address was the old one follow it, in the same transaction,
 * so a single-owner account goes on showing its owner's address; an account
 * whose contact is someone else's keeps it.
 */
export async function confirmEmailChange(opts: { token: string }): Promise<{ email: string }> {
  const { userId, email } = await consumeAccountToken("CHANGE_EMAIL", opts.token);
  try {
    // The change and the notice to the old address (issue #30) commit together.
    await sqlTransaction(async (trx) => {
      const before = await trx
        .selectFrom("User")
        .select("email")
        .where("id", "=", userId)
        .forUpdate()
        .executeTakeFirst();
      if (!before) throw new AppError("NOT_FOUND", "The account no longer exists.");
      await trx
        .updateTable("User")
        .set((eb) => ({
          email,
          emailVerifiedAt: new Date(),
          sessionVersion: eb("sessionVersion", "+", 1),
          updatedAt: new Date(),
        }))
        .where("id", "=", userId)
        .execute();
      await trx
        .updateTable("Account")
        .set({ email, updatedAt: new Date() })
        .where("email", "=", before.email)
        .where("deletedAt", "is", null)
        .where((eb) =>
          eb(
            "id",
            "in",
            eb.selectFrom("Membership").select("accountId").where("userId", "=", userId).where("role", "=", "owner"),
          ),
        )
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
