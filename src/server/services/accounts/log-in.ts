import type { TLoginInput } from "../../../shared/schemas/auth";
import { AppError } from "../../errors/app-error";
import { kysely } from "../../db/kysely";
import { decoyPasswordHash, verifyPassword } from "../../auth/password";
import { signLoginToken } from "../../auth/tokens";
import { checkSecondFactorForLogin } from "../two-factor/two-factor";

/**
 * One message, and the same work, for "no such email" and "wrong password"
 * (docs/decisions.md §20: a closed account's alias never logs in). The user
 * signs in to `accountId` when given (one of their accounts), else to the
 * account they used last, else to their oldest membership (docs/decisions.md §18). A user with
 * two-factor sign-in also gives a code or a recovery code (§22).
 */
export async function logIn(input: TLoginInput) {
  const user = await kysely()
    .selectFrom("User")
    .select(["id", "passwordHash", "sessionVersion", "lastAccountId", "twoFactorEnabledAt"])
    .where("email", "=", input.email)
    .executeTakeFirst();
  const ok = await verifyPassword(user?.passwordHash ?? (await decoyPasswordHash()), input.password);
  if (!user || !ok) throw new AppError("UNAUTHORIZED", "Invalid email or password.");
  // The second factor only once the password is right, so a code is never checked for a stranger.
  if (user.twoFactorEnabledAt)
    await checkSecondFactorForLogin({ userId: user.id, code: input.code, recoveryCode: input.recoveryCode });
  const accountId = await chooseAccount(user.id, input.accountId ?? user.lastAccountId, input.accountId !== undefined);
  return signIn({ userId: user.id, accountId, sessionVersion: user.sessionVersion, previous: user.lastAccountId });
}

/**
 * The account a sign-in lands in: `wanted` if the user is a member of it (an
 * open account), else their oldest membership of an open account. A user asking
 * for an account they are not in is told so; one with no account left at all
 * (removed everywhere, or their only account closed) cannot sign in.
 */
export async function chooseAccount(userId: string, wanted: string | null | undefined, strict = false) {
  const memberships = await kysely()
    .selectFrom("Membership as m")
    .innerJoin("Account as a", "a.id", "m.accountId")
    .select("m.accountId")
    .where("m.userId", "=", userId)
    .where("a.deletedAt", "is", null)
    .orderBy("m.createdAt")
    .orderBy("m.id")
    .execute();
  if (wanted && memberships.some((m) => m.accountId === wanted)) return wanted;
  if (wanted && strict) throw new AppError("FORBIDDEN", "You are not a member of that account.");
  const first = memberships[0];
  if (!first) throw new AppError("UNAUTHORIZED", "This sign-in belongs to no account any more.");
  return first.accountId;
}

/** A login token for the user in the account, remembered as the one they used last. */
export async function signIn(opts: {
  userId: string;
  accountId: string;
  sessionVersion: number;
  previous: string | null;
}): Promise<{ token: string; expiresAt: string; accountId: string }> {
  if (opts.previous !== opts.accountId)
    await kysely().updateTable("User").set({ lastAccountId: opts.accountId }).where("id", "=", opts.userId).execute();
  const { token, expiresAt } = await signLoginToken(opts);
  return { token, expiresAt: expiresAt.toISOString(), accountId: opts.accountId };
}
