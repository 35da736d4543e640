import type { Auth } from "../../auth/authenticate";
import { kysely } from "../../db/kysely";
import { AppError } from "../../errors/app-error";
import { chooseAccount, signIn } from "./log-in";

/**
 * Who is signed in and where (the dashboard's header and account switcher): the person, their role in this
 * account, and every open account they belong to. An API key has no person: `user` is null and `accounts`
 * holds its own account only.
 */
export async function whoAmI(auth: Auth) {
  const accounts = auth.user
    ? await kysely()
        .selectFrom("Membership as m")
        .innerJoin("Account as a", "a.id", "m.accountId")
        .select(["a.id", "a.email", "a.companyName", "m.role"])
        .where("m.userId", "=", auth.user.id)
        .where("a.deletedAt", "is", null)
        .orderBy("m.createdAt")
        .orderBy("m.id")
        .execute()
    : [];
  const current = accounts.find((a) => a.id === auth.account.id);
  return {
    user: auth.user,
    role: auth.role,
    account: {
      id: auth.account.id,
      email: auth.account.email,
      companyName: current?.companyName ?? null,
      requireTwoFactor: auth.account.requireTwoFactor ?? false,
    },
    accounts: accounts.map((a) => ({ id: a.id, email: a.email, companyName: a.companyName, role: a.role })),
  };
}

/**
 * A login token for another of the signed-in person's accounts (the account switcher). Refused for an
 * account they are not a member of; the session they switch from is theirs to end (the caller does).
 */
export async function switchAccount(opts: { userId: string; accountId: string }) {
  const user = await kysely()
    .selectFrom("User")
    .select(["sessionVersion", "lastAccountId"])
    .where("id", "=", opts.userId)
    .executeTakeFirst();
  if (!user) throw new AppError("UNAUTHORIZED", "Invalid or expired token.");
  const accountId = await chooseAccount(opts.userId, opts.accountId, true);
  return signIn({ userId: opts.userId, accountId, sessionVersion: user.sessionVersion, previous: user.lastAccountId });
}
