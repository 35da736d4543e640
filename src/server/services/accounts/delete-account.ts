import { db } from "../../db/client";
import { now as sqlNow } from "../../db/kysely";
import { sqlTransaction } from "../../db/sql-transaction";
import { AppError } from "../../errors/app-error";
import { accountClosedNotice } from "../../email/account-mails";
import { queueMail } from "../../email/queue-mail";
import { SYSTEM_ORIGIN } from "../audit/record-audit";
import { deletePhoneNumber } from "../phone-numbers/release-phone-number";
import { billing } from "../billing/billing-strategy";
import { requireCurrentPassword } from "./change-password";

/** Not an argon2 hash at all: no password verifies against it (verifyPassword answers false). */
const CLOSED_PASSWORD_HASH = "!closed";

/**
 * Closes the account for good, confirmed by its address and its password.
 * In this order, so a failure part-way leaves nothing billed or reachable:
 * the Stripe subscription is cancelled (a Stripe outage stops here, 502),
 * numbers are released (at Twilio only where they still point at us), the
 * Twilio credentials are forgotten, API keys are revoked, and the account is
 * marked closed with every session ended. Calls and usage stay for the
 * history; the address is freed for a new sign-up (the old one is kept in
 * `deletedEmail`).
 *
 * Closed is for good (docs/decisions.md §20): the password hash is destroyed, so
 * neither the alias nor the old password can log in again, and `deletedAt`
 * is what every credential and link check refuses. Mailed links are retired,
 * not deleted, so a late click is recognised as belonging to a closed account.
 */
export async function deleteAccount(opts: {
  accountId: string;
  confirmEmail: string;
  password: string;
  ip: string;
}): Promise<{ deleted: true }> {
  const account = await db().account.findUniqueOrThrow({
    where: { id: opts.accountId },
    select: { email: true, stripeSubscriptionId: true, subscriptionStatus: true },
  });
  if (opts.confirmEmail !== account.email) {
    throw new AppError("VALIDATION_FAILED", "Type the account's email address to confirm.", {
      details: [{ path: "confirmEmail", message: "does not match the account's email address" }],
    });
  }
  await requireCurrentPassword({ accountId: opts.accountId, password: opts.password, ip: opts.ip, field: "password" });
  // A subscription Stripe already ended needs nothing more.
  await billing().cancelSubscription(account.subscriptionStatus === "canceled" ? null : account.stripeSubscriptionId);

  const numbers = await db().phoneNumber.findMany({ where: { accountId: opts.accountId }, select: { id: true } });
  // One by one, through the same release as DELETE /api/phone-numbers/:id (Twilio included).
  for (const n of numbers) await deletePhoneNumber({ accountId: opts.accountId, id: n.id, origin: SYSTEM_ORIGIN });

  const now = new Date();
  await sqlTransaction(async (trx) => {
    await trx.deleteFrom("TwilioConnection").where("accountId", "=", opts.accountId).execute();
    await trx
      .updateTable("ApiKey")
      .set({ revokedAt: now })
      .where("accountId", "=", opts.accountId)
      .where("revokedAt", "is", null)
      .execute();
    await trx
      .updateTable("AccountToken")
      .set({ usedAt: now })
      .where("accountId", "=", opts.accountId)
      .where("usedAt", "is", null)
      .execute();
    const closed = await trx
      .updateTable("Account")
      .set((eb) => ({
        email: `deleted-${opts.accountId}@deleted.invalid`,
        deletedEmail: account.email,
        deletedAt: now,
        passwordHash: CLOSED_PASSWORD_HASH,
        status: "SUSPENDED",
        sessionVersion: eb("sessionVersion", "+", 1),
        updatedAt: sqlNow(),
      }))
      .where("id", "=", opts.accountId)
      .executeTakeFirst();
    // As an update by id in Prisma did (P2025, 404): the account read above must still be there, else nothing commits.
    if (closed.numUpdatedRows !== 1n) throw new AppError("NOT_FOUND");
    // Issue #30: to the address the account had, with the closing.
    await queueMail(accountClosedNotice(account.email), { kind: "account-closed", trx });
  });
  return { deleted: true };
}
