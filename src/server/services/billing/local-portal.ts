import type { AccountStatus } from "@/generated/prisma/enums";
import { db } from "../../db/client";
import { now } from "../../db/kysely";
import { sqlTransaction } from "../../db/sql-transaction";
import type { BillingPlan, PortalAction, PortalView } from "./billing-types";
import { LinkUsedError, unusedLink, spendLink } from "./billing-link-use";

export type { PortalAction, PortalView } from "./billing-types";

/** Local billing mode's portal page (GET/HEAD): the plan and the account's standing, or null for a link that is not usable. */
export async function viewLocalPortal(token: string, plan: () => Promise<BillingPlan>): Promise<PortalView | null> {
  const claims = await unusedLink("portal", token);
  if (!claims) return null;
  const account = await db().account.findFirst({
    where: { id: claims.accountId, deletedAt: null },
    select: { email: true, status: true },
  });
  return account ? { ...account, plan: await plan() } : null;
}

const TRANSITION: Record<PortalAction, { from: AccountStatus; to: AccountStatus }> = {
  cancel: { from: "ACTIVE", to: "SUSPENDED" },
  resume: { from: "SUSPENDED", to: "ACTIVE" },
};

/**
 * A portal action (POST): cancel suspends an active account, resume
 * re-activates a suspended one. The link acts once; an action that does not
 * apply to the account's standing (cancel while suspended) changes nothing and
 * leaves the link usable. "not-found" for forged, expired or used links.
 */
export async function applyLocalPortalAction(
  token: string,
  action: PortalAction,
): Promise<"done" | "not-applicable" | "not-found"> {
  const claims = await unusedLink("portal", token);
  if (!claims) return "not-found";
  const { from, to } = TRANSITION[action];
  try {
    return await sqlTransaction(async (trx) => {
      const { numUpdatedRows } = await trx
        .updateTable("Account")
        .set({ status: to, updatedAt: now() })
        .where("id", "=", claims.accountId)
        .where("deletedAt", "is", null)
        .where("status", "=", from)
        .executeTakeFirst();
      if (numUpdatedRows === 0n) return "not-applicable" as const;
      await spendLink(trx, claims);
      return "done" as const;
    });
  } catch (err) {
    if (err instanceof LinkUsedError) return "not-found";
    throw err;
  }
}
