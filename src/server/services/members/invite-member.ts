import { sql } from "kysely";
import { canManageOwners, roleAtMost, type Role } from "../../../shared/roles";
import { sqlTransaction } from "../../db/sql-transaction";
import { invitationMail } from "../../email/member-mails";
import { queueMail } from "../../email/queue-mail";
import { AppError } from "../../errors/app-error";
import { enforceRateLimits, type BucketPolicy } from "../../rate-limit/rate-limiter";
import { recordAudit, type AuditOrigin } from "../audit/record-audit";
import { INVITATION_LIFETIME_MS, newInvitationToken } from "./invitation-token";
import { MEMBERS_MAX_ITEMS } from "../../../shared/schemas/bounds";

/**
 * An account can make us mail any address, so invitations are bounded like the other mail anyone can cause
 * (services/accounts/mail-rate-limits.ts): per account, and per invited address within it.
 */
const PER_ACCOUNT: BucketPolicy = { capacity: 50, refillPerSecond: 50 / 3600 };
const PER_ADDRESS: BucketPolicy = { capacity: 5, refillPerSecond: 5 / 3600 };

/** Nobody grants more than they hold, and only an owner makes an owner (src/shared/roles.ts). */
export function assertMayGrant(callerRole: Role, role: Role): void {
  if (role === "owner" && !canManageOwners(callerRole))
    throw new AppError("FORBIDDEN", "Only an owner can make someone an owner.");
  if (!roleAtMost(role, callerRole))
    throw new AppError("FORBIDDEN", `Your role (${callerRole}) cannot grant the role ${role}.`);
}

/**
 * docs/decisions.md §18: mails a link valid 7 days. Inviting an address again replaces its pending invitation
 * (the old link stops working), so there is at most one live link per address; an address that is already a
 * member is refused. The token exists only in the mail, queued in the transaction that stores its hash.
 */
export async function inviteMember(opts: {
  accountId: string;
  callerRole: Role;
  invitedBy: { userId: string; email: string } | null;
  email: string;
  role: Role;
  origin: AuditOrigin;
}): Promise<{ invitation: { id: string; email: string; role: Role; expiresAt: string; createdAt: string } }> {
  assertMayGrant(opts.callerRole, opts.role);
  const email = opts.email.trim().toLowerCase();
  await enforceRateLimits([
    { key: `invite:account:${opts.accountId}`, policy: PER_ACCOUNT },
    { key: `invite:address:${opts.accountId}:${email}`, policy: PER_ADDRESS },
  ]);
  const { token, tokenHash } = newInvitationToken();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_MS);
  const invitation = await sqlTransaction(async (trx) => {
    // Two invitations of one address at once would both stay live; this makes the second replace the first.
    await sql`select pg_advisory_xact_lock(hashtextextended(${`invitation:${opts.accountId}:${email}`}, 0))`.execute(
      trx,
    );
    const account = await trx
      .selectFrom("Account")
      .select(["email", "companyName"])
      .where("id", "=", opts.accountId)
      .executeTakeFirstOrThrow();
    const member = await trx
      .selectFrom("Membership as m")
      .innerJoin("User as u", "u.id", "m.userId")
      .select("m.id")
      .where("m.accountId", "=", opts.accountId)
      .where("u.email", "=", email)
      .executeTakeFirst();
    if (member) throw new AppError("EMAIL_TAKEN", `${email} is already a member of this account.`);
    // Members and pending invitations (this address's own is replaced below): one invitation at a time per account.
    await sql`select pg_advisory_xact_lock(hashtextextended(${`invitations:${opts.accountId}`}, 0))`.execute(trx);
    const { members, pending } = await trx
      .selectNoFrom((eb) => [
        eb
          .selectFrom("Membership")
          .select(eb.fn.countAll<string>().as("n"))
          .where("accountId", "=", opts.accountId)
          .as("members"),
        eb
          .selectFrom("Invitation")
          .select(eb.fn.countAll<string>().as("n"))
          .where("accountId", "=", opts.accountId)
          .where("email", "!=", email)
          .where("acceptedAt", "is", null)
          .where("revokedAt", "is", null)
          .where("expiresAt", ">", now)
          .as("pending"),
      ])
      .executeTakeFirstOrThrow();
    if (Number(members) + Number(pending) >= MEMBERS_MAX_ITEMS) throw new AppError("MEMBER_LIMIT_REACHED");
    const replaced = await trx
      .updateTable("Invitation")
      .set({ revokedAt: now })
      .where("accountId", "=", opts.accountId)
      .where("email", "=", email)
      .where("acceptedAt", "is", null)
      .where("revokedAt", "is", null)
      .returning("id")
      .execute();
    const row = await trx
      .insertInto("Invitation")
      .values({
        accountId: opts.accountId,
        email,
        role: opts.role,
        tokenHash,
        invitedByUserId: opts.invitedBy?.userId ?? null,
        expiresAt,
      })
      .returning(["id", "email", "role", "expiresAt", "createdAt"])
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "invitation.created",
      target: { type: "invitation", id: row.id },
      details: { email, role: opts.role, ...(replaced.length > 0 && { replaced: replaced.map((r) => r.id) }) },
    });
    const mail = invitationMail(email, {
      token,
      accountName: account.companyName ?? account.email,
      invitedBy: opts.invitedBy?.email ?? null,
      role: opts.role,
      expiresAt,
    });
    await queueMail(mail, { kind: "member-invitation", trx });
    return row;
  });
  return {
    invitation: {
      id: invitation.id,
      email: invitation.email,
      role: invitation.role,
      expiresAt: invitation.expiresAt.toISOString(),
      createdAt: invitation.createdAt.toISOString(),
    },
  };
}

/** The link stops working at once. An invitation of another account, or one no longer pending, is 404. */
export async function revokeInvitation(opts: {
  accountId: string;
  callerRole: Role;
  id: string;
  origin: AuditOrigin;
}): Promise<{ revoked: true }> {
  return sqlTransaction(async (trx) => {
    const row = await trx
      .updateTable("Invitation")
      .set({ revokedAt: new Date() })
      .where("id", "=", opts.id)
      .where("accountId", "=", opts.accountId)
      .where("acceptedAt", "is", null)
      .where("revokedAt", "is", null)
      .returning(["id", "email", "role"])
      .executeTakeFirst();
    if (!row) throw new AppError("NOT_FOUND", "No pending invitation with this id.");
    // Whoever could not have sent an owner's invitation cannot take one back either (roles.ts canManageOwners).
    if (row.role === "owner" && !canManageOwners(opts.callerRole))
      throw new AppError("FORBIDDEN", "Only an owner can revoke an invitation to become an owner.");
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "invitation.revoked",
      target: { type: "invitation", id: row.id },
      details: { email: row.email, role: row.role },
    });
    return { revoked: true as const };
  });
}
