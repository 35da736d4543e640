import type { AccountStatus } from "@/generated/prisma/enums";
import { db } from "../../db/client";
import { verifyToken } from "../../auth/tokens";
import { env } from "../../env";
import { AppError } from "../../errors/app-error";
import { createStripeCheckoutUrl } from "./billing-provider";
import { billingPlan, type BillingPlan } from "./billing-plan";
import { LinkUsedError, unusedLink, useLink } from "./billing-link-use";

type NotShown = { outcome: "not-found" } | { outcome: "redirect"; url: string } | { outcome: "provider-unavailable"; message: string };
export type CheckoutView = NotShown | { outcome: "show"; email: string; status: AccountStatus; plan: BillingPlan };

/** Stripe mode (a link given while Stripe was unreachable): a fresh Checkout Session each time; opening it changes nothing. */
async function stripeRedirect(token: string): Promise<NotShown> {
  const claims = await verifyToken("checkout", token);
  if (!claims) return { outcome: "not-found" };
  try {
    return { outcome: "redirect", url: await createStripeCheckoutUrl(claims.accountId) };
  } catch (err) {
    return { outcome: "provider-unavailable", message: err instanceof AppError ? err.message : "The payment provider could not be reached; try again shortly." };
  }
}

/**
 * GET or HEAD of our checkout link (decisions §4). Local mode: the plan and a
 * Pay button, and nothing else: link previews, mail scanners and crawlers open
 * links, so opening one must never pay.
 */
export async function viewCheckoutLink(token: string): Promise<CheckoutView> {
  if (env().billingMode === "stripe") return stripeRedirect(token);
  const claims = await unusedLink("checkout", token);
  if (!claims) return { outcome: "not-found" };
  const account = await db().account.findUnique({ where: { id: claims.accountId }, select: { email: true, status: true } });
  if (!account) return { outcome: "not-found" };
  return { outcome: "show", ...account, plan: await billingPlan() };
}

export type CheckoutPayment = { outcome: "paid" } | NotShown;

/**
 * POST of our checkout link: local mode completes payment (an unpaid or
 * suspended account becomes ACTIVE) and uses the link up; Stripe mode sends the
 * browser to a fresh Checkout Session.
 */
export async function payCheckoutLink(token: string): Promise<CheckoutPayment> {
  if (env().billingMode === "stripe") return stripeRedirect(token);
  const claims = await verifyToken("checkout", token);
  if (!claims) return { outcome: "not-found" };
  try {
    return await db().$transaction(async (tx) => {
      const account = await tx.account.findUnique({ where: { id: claims.accountId }, select: { id: true } });
      if (!account) throw new LinkUsedError("account gone");
      await useLink(tx, claims);
      await tx.account.updateMany({ where: { id: claims.accountId, status: { in: ["INACTIVE", "SUSPENDED"] } }, data: { status: "ACTIVE" } });
      return { outcome: "paid" as const };
    });
  } catch (err) {
    if (err instanceof LinkUsedError) return { outcome: "not-found" };
    throw err;
  }
}
