import type { AccountStatus } from "@/generated/prisma/enums";
import { db } from "../../db/client";
import { verifyToken } from "../../auth/tokens";
import { env } from "../../env";
import { createStripeCheckoutUrl } from "./billing-provider";

export type LocalCheckoutResult =
  | { outcome: "invalid-link" }
  | { outcome: "redirect"; url: string }
  | { outcome: "provider-unavailable" }
  | { outcome: "activated" | "already-active" | "suspended"; email: string; status: AccountStatus };

/**
 * Our checkout link. Local billing mode: opening it is the payment (decisions
 * §4). Stripe mode (a link given while Stripe was unreachable): it makes a
 * fresh Checkout Session and sends the browser there.
 */
export async function openCheckoutLink(token: string): Promise<LocalCheckoutResult> {
  const accountId = await verifyToken("checkout", token);
  if (!accountId) return { outcome: "invalid-link" };
  if (env().billingMode === "stripe") {
    try {
      return { outcome: "redirect", url: await createStripeCheckoutUrl(accountId) };
    } catch {
      return { outcome: "provider-unavailable" };
    }
  }
  const activated = await db().account.updateMany({ where: { id: accountId, status: "INACTIVE" }, data: { status: "ACTIVE" } });
  const account = await db().account.findUnique({ where: { id: accountId }, select: { email: true, status: true } });
  if (!account) return { outcome: "invalid-link" };
  if (activated.count === 1) return { outcome: "activated", ...account };
  return { outcome: account.status === "SUSPENDED" ? "suspended" : "already-active", ...account };
}
