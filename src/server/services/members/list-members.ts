import type { Role } from "../../../shared/roles";
import { kysely } from "../../db/kysely";
import type { SqlTransaction } from "../../db/sql-transaction";

export type MemberView = {
  id: string;
  userId: string;
  email: string;
  role: Role;
  joinedAt: string;
  twoFactorEnabled: boolean;
};

/** One query for the list and for a single member (`id`), so the two never disagree on a member's shape. */
export async function readMembers(
  opts: { accountId: string; id?: string },
  trx?: SqlTransaction,
): Promise<MemberView[]> {
  let q = (trx ?? kysely())
    .selectFrom("Membership as m")
    .innerJoin("User as u", "u.id", "m.userId")
    .select(["m.id", "m.userId", "u.email", "m.role", "m.createdAt", "u.twoFactorEnabledAt"])
    .where("m.accountId", "=", opts.accountId);
  if (opts.id !== undefined) q = q.where("m.id", "=", opts.id);
  const rows = await q.orderBy("m.createdAt").orderBy("m.id").execute();
  return rows.map((r) => ({
    id: r.id,
    userId: r.userId,
    email: r.email,
    role: r.role,
    joinedAt: r.createdAt.toISOString(),
    twoFactorEnabled: r.twoFactorEnabledAt !== null,
  }));
}

export async function listMembers(opts: { accountId: string }): Promise<{ members: MemberView[] }> {
  return { members: await readMembers(opts) };
}

/** Pending invitations only: an accepted, revoked or expired one is history (the audit log keeps it). */
export async function listInvitations(opts: { accountId: string }) {
  const rows = await kysely()
    .selectFrom("Invitation")
    .select(["id", "email", "role", "expiresAt", "createdAt"])
    .where("accountId", "=", opts.accountId)
    .where("acceptedAt", "is", null)
    .where("revokedAt", "is", null)
    .where("expiresAt", ">", new Date())
    .orderBy("createdAt", "desc")
    .orderBy("id", "desc")
    .execute();
  return {
    invitations: rows.map((r) => ({
      id: r.id,
      email: r.email,
      role: r.role,
      expiresAt: r.expiresAt.toISOString(),
      createdAt: r.createdAt.toISOString(),
    })),
  };
}
