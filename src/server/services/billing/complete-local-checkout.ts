import type { AccountStatus } from "@/generated/prisma/enums";
import { db } from "../../db/client";
import { verifyToken } from "../../auth/tokens";

export type LocalCheckoutResult =
  | { outcome: "invalid-link" }
  | { outcome: "activated" | "already-active" | "suspended"; email: string; status: AccountStatus };

/** Local billing mode: opening the checkout link is the payment (decisions §4). */
export async function completeLocalCheckout(token: string): Promise<LocalCheckoutResult> {
  const accountId = await verifyToken("checkout", token);
  if (!accountId) return { outcome: "invalid-link" };
  const activated = await db().account.updateMany({ where: { id: accountId, status: "INACTIVE" }, data: { status: "ACTIVE" } });
  const account = await db().account.findUnique({ where: { id: accountId }, select: { email: true, status: true } });
  if (!account) return { outcome: "invalid-link" };
  if (activated.count === 1) return { outcome: "activated", ...account };
  return { outcome: account.status === "SUSPENDED" ? "suspended" : "already-active", ...account };
}
