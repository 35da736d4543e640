import type { TLoginInput } from "../../../shared/schemas/auth";
import { AppError } from "../../errors/app-error";
import { db } from "../../db/client";
import { decoyPasswordHash, verifyPassword } from "../../auth/password";
import { signToken } from "../../auth/tokens";

/**
 * One message, and the same work, for "no such email", "wrong password" and
 * "closed account" (docs/decisions.md §20: a closed account's alias never logs in).
 */
export async function logIn(input: TLoginInput) {
  const found = await db().account.findUnique({
    where: { email: input.email },
    select: { id: true, passwordHash: true, sessionVersion: true, deletedAt: true },
  });
  const account = found && !found.deletedAt ? found : null;
  const ok = await verifyPassword(account?.passwordHash ?? (await decoyPasswordHash()), input.password);
  if (!account || !ok) throw new AppError("UNAUTHORIZED", "Invalid email or password.");
  const { token, expiresAt } = await signToken("login", account.id, { sessionVersion: account.sessionVersion });
  return { token, expiresAt: expiresAt.toISOString() };
}
