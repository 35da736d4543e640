import type { AccountStatus } from "@/generated/prisma/enums";
import { db } from "../../db/client";
import { verifyToken } from "../../auth/tokens";

/**
 * Local billing mode's portal: cancel suspends the account, resume
 * re-activates a suspended one. An account that never paid goes to checkout.
 */
export async function localPortalAction(token: string, action: "cancel" | "resume"): Promise<AccountStatus | null> {
  const accountId = await verifyToken("portal", token);
  if (!accountId) return null;
  const [from, to]: [AccountStatus, AccountStatus] = action === "cancel" ? ["ACTIVE", "SUSPENDED"] : ["SUSPENDED", "ACTIVE"];
  await db().account.updateMany({ where: { id: accountId, status: from }, data: { status: to } });
  const account = await db().account.findUnique({ where: { id: accountId }, select: { status: true } });
  return account?.status ?? null;
}

export async function localPortalAccount(token: string) {
  const accountId = await verifyToken("portal", token);
  if (!accountId) return null;
  return db().account.findUnique({ where: { id: accountId }, select: { id: true, email: true, status: true } });
}
