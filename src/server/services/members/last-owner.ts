import type { SqlTransaction } from "../../db/sql-transaction";
import { AppError } from "../../errors/app-error";

/**
 * docs/decisions.md §18: an account keeps at least one owner. Every change or removal of a member first locks
 * the account's owner rows, in one order, and only then its target: two owners demoting (or removing) each
 * other at once queue here rather than deadlock, and the second counts again after the first commits
 * (PostgreSQL re-checks `role = 'owner'` on a row it waited for), so both cannot pass.
 */
export async function lockOwners(trx: SqlTransaction, accountId: string): Promise<string[]> {
  const owners = await trx
    .selectFrom("Membership")
    .select("id")
    .where("accountId", "=", accountId)
    .where("role", "=", "owner")
    .orderBy("id")
    .forUpdate()
    .execute();
  return owners.map((o) => o.id);
}

/** With the owners locked by `lockOwners`: demoting or removing `membershipId` must leave an owner. */
export function assertNotLastOwner(owners: string[], membershipId: string): void {
  if (owners.length === 1 && owners[0] === membershipId) throw new AppError("LAST_OWNER");
}
