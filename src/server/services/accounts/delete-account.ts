import { db } from "../../db/client";
import { sql } from "kysely";
import { now as sqlNow } from "../../db/kysely";
import { sqlTransaction } from "../../db/sql-transaction";
import { AppError } from "../../errors/app-error";
import { accountClosedNotice } from "../../email/account-mails";
import { queueMail } from "../../email/queue-mail";
import { deletePhoneNumber } from "../phone-numbers/release-phone-number";
import { billing } from "../billing/billing-strategy";
import { recordAudit } from "../audit/record-audit";
import { requireCurrentPassword } from "./change-password";

/** Not an argon2 hash at all: no password verifies against it (verifyPassword answers false). */
const CLOSED_PASSWORD_HASH = "!closed";

/**
 * Closes the account for good, by an owner (the procedure's `needs: "owner"`),
 * confirmed by the account's address and the caller's own password.
 * In this order, so a failure part-way leaves nothing billed or reachable:
 * the Stripe subscription is cancelled (a Stripe outage stops here, 502),
 * numbers are released (at Twilio only where they still point at us), the
 * Twilio credentials are forgotten, API keys are revoked, and the account is
 * marked closed with its memberships and invitations gone. Calls and usage
 * stay for the history; the address is freed for a new sign-up (the old one
 * is kept in `deletedEmail`).
 *
 * Closed is for good (docs/decisions.md §20): `deletedAt` is what every credential
 * and link check refuses. Mailed links are retired, not deleted, so a late
 * click is recognised as belonging to a closed account.
 *
 * Members (docs/decisions.md §18): a person who belonged to no other open account
 * is gone with it, as the one login of an account was before users: their
 * address becomes an alias (so it is free for a new sign-up), their password
 * hash and two-factor secrets are destroyed and every session ends. The row
 * itself stays, as the account's does, because the links mailed to them hang
 * on it (a row deleted would take its links along, and a late click would be
 * "invalid" instead of the closed account's 404). Anyone who belongs to another
 * open account keeps their sign-in and simply loses this account.
 */
export async function deleteAccount(opts: {
  accountId: string;
  userId: string;
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
  await requireCurrentPassword({ userId: opts.userId, password: opts.password, ip: opts.ip, field: "password" });
  // A subscription Stripe already ended needs nothing more.
  await billing().cancelSubscription(account.subscriptionStatus === "canceled" ? null : account.stripeSubscriptionId);

  const numbers = await db().phoneNumber.findMany({ where: { accountId: opts.accountId }, select: { id: true } });
  // One by one, through the same release as DELETE /api/phone-numbers/:id (Twilio included).
  for (const n of numbers) await deletePhoneNumber({ accountId: opts.accountId, id: n.id });

  const now = new Date();
  await sqlTransaction(async (trx) => {
    const closer = await trx.selectFrom("User").select("email").where("id", "=", opts.userId).executeTakeFirst();
    if (!closer) throw new AppError("NOT_FOUND");
    // The members' rows are locked (in id order, so two closings never deadlock) before their other
    // memberships are counted: two accounts of one person closed at once cannot each see the other
    // still open and both leave the person behind with no account.
    const members = await trx
      .selectFrom("Membership as m")
      .innerJoin("User as u", "u.id", "m.userId")
      .select("u.id")
      .where("m.accountId", "=", opts.accountId)
      .orderBy("u.id")
      .forUpdate("u")
      .execute();
    await trx.deleteFrom("TwilioConnection").where("accountId", "=", opts.accountId).execute();
    await trx
      .updateTable("ApiKey")
      .set({ revokedAt: now })
      .where("accountId", "=", opts.accountId)
      .where("revokedAt", "is", null)
      .execute();
    await trx.deleteFrom("Membership").where("accountId", "=", opts.accountId).execute();
    await trx.deleteFrom("Invitation").where("accountId", "=", opts.accountId).execute();
    const memberIds = members.map((m) => m.id);
    const leaving =
      memberIds.length === 0
        ? []
        : await trx
            .selectFrom("User as u")
            .select("u.id")
            .where("u.id", "in", memberIds)
            .where(({ not, exists, selectFrom }) =>
              not(
                exists(
                  selectFrom("Membership as m")
                    .innerJoin("Account as a", "a.id", "m.accountId")
                    .select("m.id")
                    .whereRef("m.userId", "=", "u.id")
                    .where("a.deletedAt", "is", null)
                    .where("a.id", "!=", opts.accountId),
                ),
              ),
            )
            .execute();
    const leavingIds = leaving.map((u) => u.id);
    if (leavingIds.length > 0) {
      await trx.deleteFrom("RecoveryCode").where("userId", "in", leavingIds).execute();
      await trx
        .updateTable("User")
        .set((eb) => ({
          email: sql<string>`'deleted-' || ${eb.ref("id")} || '@deleted.invalid'`,
          passwordHash: CLOSED_PASSWORD_HASH,
          emailVerifiedAt: null,
          totpSecretEnc: null,
          twoFactorEnabledAt: null,
          totpLastStep: null,
          lastAccountId: null,
          sessionVersion: eb("sessionVersion", "+", 1),
          updatedAt: sqlNow(),
        }))
        .where("id", "in", leavingIds)
        .execute();
    }
    // Every link about this account, and every link of a person who is gone.
    await trx
      .updateTable("AccountToken")
      .set({ usedAt: now })
      .where((eb) =>
        leavingIds.length === 0
          ? eb("accountId", "=", opts.accountId)
          : eb.or([eb("accountId", "=", opts.accountId), eb("userId", "in", leavingIds)]),
      )
      .where("usedAt", "is", null)
      .execute();
    const closed = await trx
      .updateTable("Account")
      .set({
        email: `deleted-${opts.accountId}@deleted.invalid`,
        deletedEmail: account.email,
        deletedAt: now,
        status: "SUSPENDED",
        updatedAt: sqlNow(),
      })
      .where("id", "=", opts.accountId)
      .executeTakeFirst();
    // As an update by id in Prisma did (P2025, 404): the account read above must still be there, else nothing commits.
    if (closed.numUpdatedRows !== 1n) throw new AppError("NOT_FOUND");
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: { actor: { type: "member", userId: opts.userId, email: closer.email }, ip: opts.ip },
      action: "account.closed",
      target: { type: "account", id: opts.accountId },
      details: { membersRemoved: memberIds.length, usersClosed: leavingIds.length },
    });
    // Issue #30: to the address the account had, with the closing.
    await queueMail(accountClosedNotice(account.email), { kind: "account-closed", trx });
  });
  return { deleted: true };
}
