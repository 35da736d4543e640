import { db } from "../../db/client";
import { AppError } from "../../errors/app-error";
import { hashPassword, verifyPassword } from "../../auth/password";
import { sessionPasswordCheckLimits } from "../../rate-limit/credential-limits";
import { enforceCredentialLimits } from "../../rate-limit/enforce-credential-limits";
import { retireAccountTokens } from "./account-tokens";

export const WRONG_CURRENT_PASSWORD = "is not your current password";

/**
 * Checks the account's password; a wrong one is a 400 naming the field, so a
 * form can show it there. Every check counts against log-in's limits for the
 * account's address and the client's (docs/decisions.md §20), before the hash is tried.
 */
export async function requireCurrentPassword(opts: {
  accountId: string;
  password: string;
  ip: string;
  field?: string;
}): Promise<void> {
  const account = await db().account.findUniqueOrThrow({
    where: { id: opts.accountId },
    select: { email: true, passwordHash: true },
  });
  await enforceCredentialLimits(sessionPasswordCheckLimits({ ip: opts.ip, email: account.email }));
  if (!(await verifyPassword(account.passwordHash, opts.password))) {
    const field = opts.field ?? "currentPassword";
    throw new AppError("VALIDATION_FAILED", `The password ${WRONG_CURRENT_PASSWORD}.`, {
      details: [{ path: field, message: WRONG_CURRENT_PASSWORD }],
    });
  }
}

/**
 * A new password, the current one required. Every other session and login
 * token ends (the session version moves); the dashboard signs this browser
 * in again with the new password, so the person who changed it stays in.
 * Unused reset and change-of-address links are retired too.
 */
export async function changePassword(opts: {
  accountId: string;
  currentPassword: string;
  newPassword: string;
  ip: string;
}): Promise<{ changed: true }> {
  await requireCurrentPassword({ accountId: opts.accountId, password: opts.currentPassword, ip: opts.ip });
  const passwordHash = await hashPassword(opts.newPassword);
  await db().account.update({
    where: { id: opts.accountId },
    data: { passwordHash, sessionVersion: { increment: 1 } },
  });
  await retireAccountTokens(opts.accountId, ["RESET_PASSWORD", "CHANGE_EMAIL"]);
  return { changed: true };
}
