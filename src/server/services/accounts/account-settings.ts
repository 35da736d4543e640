import { db } from "../../db/client";

/** What the settings page and the unverified banner need to know. */
export async function getAccountSettings(opts: { accountId: string }) {
  const account = await db().account.findUniqueOrThrow({
    where: { id: opts.accountId },
    select: { email: true, emailVerifiedAt: true },
  });
  const pending = await db().accountToken.findFirst({
    where: { accountId: opts.accountId, purpose: "CHANGE_EMAIL", usedAt: null, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
    select: { email: true },
  });
  return {
    email: account.email,
    emailVerified: account.emailVerifiedAt !== null,
    emailVerifiedAt: account.emailVerifiedAt?.toISOString() ?? null,
    pendingEmail: pending?.email ?? null,
  };
}
