import { db } from "../../db/client";

/**
 * What the settings page and the unverified banner need to know: the signed-in person's
 * address and its verification (docs/decisions.md §18: they are the user's, in every account).
 * `accountId` is the account the page is shown in; the address and any pending change are the same in all.
 */
export async function getAccountSettings(opts: { userId: string; accountId: string }) {
  const user = await db().user.findUniqueOrThrow({
    where: { id: opts.userId },
    select: { email: true, emailVerifiedAt: true },
  });
  const pending = await db().accountToken.findFirst({
    where: {
      userId: opts.userId,
      purpose: "CHANGE_EMAIL",
      usedAt: null,
      expiresAt: { gt: new Date() },
      // A link asked for in an account closed since acts on nothing (consumeAccountToken): not pending.
      account: { deletedAt: null },
    },
    orderBy: { createdAt: "desc" },
    select: { email: true },
  });
  return {
    email: user.email,
    emailVerified: user.emailVerifiedAt !== null,
    emailVerifiedAt: user.emailVerifiedAt?.toISOString() ?? null,
    pendingEmail: pending?.email ?? null,
  };
}
