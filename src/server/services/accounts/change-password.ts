import { db } from "../../db/client";
import { sqlTransaction } from "../../db/sql-transaction";
import { passwordChangedNotice } from "../../email/account-mails";
import { queueMail } from "../../email/queue-mail";
import { AppError } from "../../errors/app-error";
import { hashPassword, verifyPassword } from "../../auth/password";
import { sessionPasswordCheckLimits } from "../../rate-limit/credential-limits";
import { enforceCredentialLimits } from "../../rate-limit/enforce-credential-limits";
import { retireAccountTokens } from "./account-tokens";

const WRONG_CURRENT_PASSWORD = "is not your current password";

/**
 * Checks the signed-in person's password (the user's: docs/decisions.md §18); a wrong
 * one is a 400 naming the field, so a form can show it there. Every check counts
 * against log-in's limits for the user's address and the client's (docs/decisions.md §20),
 * before the hash is tried.
 */
export async function requireCurrentPassword(opts: {
  userId: string;
  password: string;
  ip: string;
  field?: string;
}): Promise<void> {
  const user = await db().user.findUniqueOrThrow({
    where: { id: opts.userId },
    select: { email: true, passwordHash: true },
  });
  await enforceCredentialLimits(sessionPasswordCheckLimits({ ip: opts.ip, email: user.email }));
  if (!(await verifyPassword(user.passwordHash, opts.password))) {
    const field = opts.field ?? "currentPassword";
    throw new AppError("VALIDATION_FAILED", `The password ${WRONG_CURRENT_PASSWORD}.`, {
      details: [{ path: field, message: WRONG_CURRENT_PASSWORD }],
    });
  }
}

/**
 * A new password, the current one required. Every other session and login
 * token of the person ends, in every account they belong to (the user's session
 * version moves); the dashboard signs this browser in again with the new password,
 * so the person who changed it stays in. Their unused reset and change-of-address
 * links are retired too.
 */
export async function changePassword(opts: {
  userId: string;
  currentPassword: string;
  newPassword: string;
  ip: string;
}): Promise<{ changed: true }> {
  await requireCurrentPassword({ userId: opts.userId, password: opts.currentPassword, ip: opts.ip });
  const passwordHash = await hashPassword(opts.newPassword);
  // The change and its notice (issue #30, the durable mail job) commit together.
  await sqlTransaction(async (trx) => {
    const changed = await trx
      .updateTable("User")
      .set((eb) => ({ passwordHash, sessionVersion: eb("sessionVersion", "+", 1), updatedAt: new Date() }))
      .where("id", "=", opts.userId)
      .returning("email")
      .executeTakeFirst();
    if (!changed) throw new AppError("NOT_FOUND");
    await queueMail(passwordChangedNotice(changed.email), { kind: "password-changed", trx });
  });
  await retireAccountTokens(opts.userId, ["RESET_PASSWORD", "CHANGE_EMAIL"]);
  return { changed: true };
}
