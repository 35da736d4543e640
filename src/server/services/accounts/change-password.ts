import { db } from "../../db/client";
import { AppError } from "../../errors/app-error";
import { hashPassword, verifyPassword } from "../../auth/password";
import { retireAccountTokens } from "./account-tokens";

export const WRONG_CURRENT_PASSWORD = "is not your current password";

/** Checks the account's password; a wrong one is a 400 naming the field, so a form can show it there. */
export async function requireCurrentPassword(accountId: string, password: string, field = "currentPassword"): Promise<void> {
  const account = await db().account.findUniqueOrThrow({ where: { id: accountId }, select: { passwordHash: true } });
  if (!(await verifyPassword(account.passwordHash, password))) {
    throw new AppError("VALIDATION_FAILED", `The password ${WRONG_CURRENT_PASSWORD}.`, { details: [{ path: field, message: WRONG_CURRENT_PASSWORD }] });
  }
}

/**
 * A new password, the current one required. Every other session and login
 * token ends (the session version moves); the dashboard signs this browser
 * in again with the new password, so the person who changed it stays in.
 * Unused reset and change-of-address links are retired too.
 */
export async function changePassword(opts: { accountId: string; currentPassword: string; newPassword: string }): Promise<{ changed: true }> {
  await requireCurrentPassword(opts.accountId, opts.currentPassword);
  const passwordHash = await hashPassword(opts.newPassword);
  await db().account.update({ where: { id: opts.accountId }, data: { passwordHash, sessionVersion: { increment: 1 } } });
  await retireAccountTokens(opts.accountId, ["RESET_PASSWORD", "CHANGE_EMAIL"]);
  return { changed: true };
}
