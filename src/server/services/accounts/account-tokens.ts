import { createHash, randomBytes } from "node:crypto";
import type { AccountTokenPurpose } from "@/generated/prisma/enums";
import { db } from "../../db/client";
import { sqlTransaction } from "../../db/sql-transaction";
import { AppError } from "../../errors/app-error";
import type { MailMessage } from "../../email/mail-message";
import { queueMail } from "../../email/queue-mail";

/**
 * The one-time links sent by mail. The token is 256 random bits; only its
 * SHA-256 is stored, so a database read cannot be turned into a link. A new
 * link of a purpose retires the account's earlier unused ones.
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
      .where("accountId", "=", opts.accountId)
      .where("purpose", "=", opts.purpose)
      .where("usedAt", "is", null)
      .execute();
    await trx
      .insertInto("AccountToken")
      .values({
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

/** Retires unused links (a password change retires a pending email change). */
export async function retireAccountTokens(accountId: string, purposes: AccountTokenPurpose[]): Promise<void> {
  await db().accountToken.updateMany({
    where: { accountId, purpose: { in: purposes }, usedAt: null },
    data: { usedAt: new Date() },
  });
}

const INVALID_LINK_MESSAGE = "This link is invalid, already used or expired. Ask for a new one.";

/**
 * Uses the link once: the conditional update is the claim, so two clicks at
 * once cannot both succeed. Unknown, used and expired links are one answer;
 * a link of a closed account is 404 and acts on nothing (docs/decisions.md §20).
 */
export async function consumeAccountToken(
  purpose: AccountTokenPurpose,
  token: string,
): Promise<{ accountId: string; email: string }> {
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
    select: { accountId: true, email: true },
  });
  return row;
}
