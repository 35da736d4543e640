import { createHash, randomBytes } from "node:crypto";
import type { AccountTokenPurpose } from "@/generated/prisma/enums";
import { db } from "../../db/client";
import { kysely } from "../../db/kysely";
import { sqlTransaction } from "../../db/sql-transaction";
import { AppError } from "../../errors/app-error";
import type { MailMessage } from "../../email/mail-message";
import { queueMail } from "../../email/queue-mail";

/**
 * The one-time links sent by mail. The token is 256 random bits; only its
 * SHA-256 is stored, so a database read cannot be turned into a link. A link
 * is the person's (`userId`: their password, their address) and names the
 * account it is about; a new link of a purpose retires the user's earlier
 * unused ones, whichever account they were issued in.
 */
const LIFETIME_MS: Record<AccountTokenPurpose, number> = {
  VERIFY_EMAIL: 48 * 3600_000,
  RESET_PASSWORD: 3600_000,
  CHANGE_EMAIL: 24 * 3600_000,
};

function hashAccountToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A mail that carries the link: queued (durably) in the transaction that issues the token, so neither exists without the other. */
export type TokenMail = (token: string) => { kind: string; messages: MailMessage[] };

export async function issueAccountToken(opts: {
  userId: string;
  accountId: string;
  purpose: AccountTokenPurpose;
  email: string;
  mail?: TokenMail;
}): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  const now = new Date();
  await sqlTransaction(async (trx) => {
    await trx
      .updateTable("AccountToken")
      .set({ usedAt: now })
      .where("userId", "=", opts.userId)
      .where("purpose", "=", opts.purpose)
      .where("usedAt", "is", null)
      .execute();
    await trx
      .insertInto("AccountToken")
      .values({
        userId: opts.userId,
        accountId: opts.accountId,
        purpose: opts.purpose,
        email: opts.email,
        tokenHash: hashAccountToken(token),
        expiresAt: new Date(now.getTime() + LIFETIME_MS[opts.purpose]),
      })
      .execute();
    if (opts.mail) {
      const { kind, messages } = opts.mail(token);
      for (const message of messages) await queueMail(message, { kind, trx });
    }
  });
  return token;
}

/** Retires the user's unused links (a password change retires a pending email change). */
export async function retireAccountTokens(userId: string, purposes: AccountTokenPurpose[]): Promise<void> {
  await db().accountToken.updateMany({
    where: { userId, purpose: { in: purposes }, usedAt: null },
    data: { usedAt: new Date() },
  });
}

/**
 * The account a link about the person (a password reset) names: the one they
 * signed in to last if it is still theirs and open, else their oldest open
 * membership, as log-in picks (log-in.ts); null when they belong to no open account.
 */
export async function accountForLinks(userId: string, preferred: string | null): Promise<string | null> {
  const row = await kysely()
    .selectFrom("Membership as m")
    .innerJoin("Account as a", "a.id", "m.accountId")
    .select("m.accountId")
    .where("m.userId", "=", userId)
    .where("a.deletedAt", "is", null)
    .orderBy((eb) => eb("m.accountId", "=", preferred ?? ""), "desc")
    .orderBy("m.createdAt")
    .orderBy("m.id")
    .limit(1)
    .executeTakeFirst();
  return row?.accountId ?? null;
}

const INVALID_LINK_MESSAGE = "This link is invalid, already used or expired. Ask for a new one.";

/**
 * Uses the link once: the conditional update is the claim, so two clicks at
 * once cannot both succeed. Unknown, used and expired links are one answer;
 * a link about a closed account is 404 and acts on nothing (docs/decisions.md §20).
 */
export async function consumeAccountToken(
  purpose: AccountTokenPurpose,
  token: string,
): Promise<{ userId: string; accountId: string; email: string }> {
  const tokenHash = hashAccountToken(token);
  const now = new Date();
  const claimed = await db().accountToken.updateMany({
    where: { tokenHash, purpose, usedAt: null, expiresAt: { gt: now }, account: { deletedAt: null } },
    data: { usedAt: now },
  });
  if (claimed.count !== 1) {
    // Only a failed claim pays for this read: the link may be a closed account's.
    const closed = await db().accountToken.findFirst({
      where: { tokenHash, purpose, account: { deletedAt: { not: null } } },
      select: { id: true },
    });
    if (closed) throw new AppError("NOT_FOUND", "This link belongs to a closed account.");
    throw new AppError("VALIDATION_FAILED", INVALID_LINK_MESSAGE, {
      details: [{ path: "token", message: "invalid, used or expired" }],
    });
  }
  const row = await db().accountToken.findUniqueOrThrow({
    where: { tokenHash },
    select: { userId: true, accountId: true, email: true },
  });
  return row;
}
