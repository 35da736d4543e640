import { canManageOwners, type Role } from "../../../shared/roles";
import { sqlTransaction } from "../../db/sql-transaction";
import { AppError } from "../../errors/app-error";
import { recordAudit, type AuditOrigin } from "../audit/record-audit";
import { assertNotLastOwner, lockOwners } from "./last-owner";

/**
 * docs/decisions.md §18: DELETE /api/members/{id}; one's own membership is leaving. The last owner can neither
 * leave nor be removed (409 LAST_OWNER), and only an owner removes an owner. Deleting the membership row is what
 * ends the person's sessions for this account at once: every login token is checked against it on each request.
 * Their API keys stay: keys belong to the account (§18).
 */
export async function removeMember(opts: {
  accountId: string;
  callerRole: Role;
  callerUserId: string | null;
  id: string;
  origin: AuditOrigin;
}): Promise<{ removed: true }> {
  return sqlTransaction(async (trx) => {
    const owners = await lockOwners(trx, opts.accountId);
    const target = await trx
      .selectFrom("Membership as m")
      .innerJoin("User as u", "u.id", "m.userId")
      .select(["m.id", "m.userId", "m.role", "u.email"])
      .where("m.id", "=", opts.id)
      .where("m.accountId", "=", opts.accountId)
      .forUpdate("m")
      .executeTakeFirst();
    if (!target) throw new AppError("NOT_FOUND", "No member with this id.");
    const leaving = target.userId === opts.callerUserId;
    if (target.role === "owner" && !leaving && !canManageOwners(opts.callerRole))
      throw new AppError("FORBIDDEN", "Only an owner can remove an owner.");
    if (target.role === "owner") assertNotLastOwner(owners, target.id);
    await trx.deleteFrom("Membership").where("id", "=", target.id).execute();
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "member.removed",
      target: { type: "member", id: target.id },
      details: { userId: target.userId, email: target.email, role: target.role, ...(leaving && { left: true }) },
    });
    return { removed: true as const };
  });
}
