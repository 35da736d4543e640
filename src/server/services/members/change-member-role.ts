import { canManageOwners, type Role } from "../../../shared/roles";
import { sqlTransaction, type SqlTransaction } from "../../db/sql-transaction";
import { AppError } from "../../errors/app-error";
import { recordAudit, type AuditOrigin } from "../audit/record-audit";
import { assertMayGrant } from "./invite-member";
import { assertNotLastOwner, lockOwners } from "./last-owner";
import { readMembers, type MemberView } from "./list-members";

/**
 * docs/decisions.md §18, §22: PATCH /api/members/{id}. The caller grants at most their own role, only an owner
 * touches an owner, and the last owner is never demoted (409 LAST_OWNER). Authentication reads the membership on
 * every request, so the new role applies from the member's next request.
 */
export async function changeMemberRole(opts: {
  accountId: string;
  callerRole: Role;
  id: string;
  role: Role;
  origin: AuditOrigin;
}): Promise<{ member: MemberView }> {
  return sqlTransaction(async (trx) => {
    const owners = await lockOwners(trx, opts.accountId);
    const target = await trx
      .selectFrom("Membership")
      .select(["id", "userId", "role"])
      .where("id", "=", opts.id)
      .where("accountId", "=", opts.accountId)
      .forUpdate()
      .executeTakeFirst();
    if (!target) throw new AppError("NOT_FOUND", "No member with this id.");
    if (target.role === "owner" && !canManageOwners(opts.callerRole))
      throw new AppError("FORBIDDEN", "Only an owner can change an owner's role.");
    assertMayGrant(opts.callerRole, opts.role);
    if (target.role === opts.role) return { member: await one(trx, opts) };
    if (target.role === "owner") assertNotLastOwner(owners, target.id);
    await trx.updateTable("Membership").set({ role: opts.role }).where("id", "=", target.id).execute();
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "member.role_changed",
      target: { type: "member", id: target.id },
      details: { userId: target.userId, from: target.role, to: opts.role },
    });
    return { member: await one(trx, opts) };
  });
}

async function one(trx: SqlTransaction, opts: { accountId: string; id: string }) {
  const [member] = await readMembers(opts, trx);
  if (!member) throw new AppError("NOT_FOUND", "No member with this id.");
  return member;
}
