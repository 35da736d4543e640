import { db } from "../../db/client";
import { now } from "../../db/kysely";
import { sqlTransaction } from "../../db/sql-transaction";
import { verifyToken } from "../../auth/tokens";
import type { BillingPlan, CheckoutPayment, CheckoutView } from "./billing-types";
import { LinkUsedError, unusedLink, spendLink } from "./billing-link-use";

/**
 * GET or HEAD of our checkout link in local billing mode (docs/decisions.md §4): the plan and a Pay
 * button, and nothing else: link previews, mail scanners and crawlers open links, so opening one
 * must never pay.
 */
export async function viewLocalCheckout(token: string, plan: () => Promise<BillingPlan>): Promise<CheckoutView> {
  const claims = await unusedLink("checkout", token);
  if (!claims) return { outcome: "not-found" };
  const account = await db().account.findFirst({
    where: { id: claims.accountId, deletedAt: null },
    select: { email: true, status: true },
  });
  if (!account) return { outcome: "not-found" };
  return { outcome: "show", ...account, plan: await plan() };
}

/** POST of our checkout link: completes payment (an unpaid or suspended account becomes ACTIVE) and uses the link up; a closed account's link is not found. */
export async function payLocalCheckout(token: string): Promise<CheckoutPayment> {
  const claims = await verifyToken("checkout", token);
  if (!claims) return { outcome: "not-found" };
  try {
    return await sqlTransaction(async (trx) => {
      // The update below repeats `deletedAt: null`, so a closing that commits meanwhile still wins.
      const account = await trx
        .selectFrom("Account")
        .select("id")
        .where("id", "=", claims.accountId)
        .where("deletedAt", "is", null)
        .executeTakeFirst();
      if (!account) throw new LinkUsedError("account gone or closed");
      await spendLink(trx, claims);
      await trx
        .updateTable("Account")
        .set({ status: "ACTIVE", updatedAt: now() })
        .where("id", "=", claims.accountId)
        .where("deletedAt", "is", null)
        .where("status", "in", ["INACTIVE", "SUSPENDED"])
        .execute();
      return { outcome: "paid" as const };
    });
  } catch (err) {
    if (err instanceof LinkUsedError) return { outcome: "not-found" };
    throw err;
  }
}
