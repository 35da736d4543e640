import type { Prisma } from "@/generated/prisma/client";
import type { AccountStatus } from "@/generated/prisma/enums";
import { inPrismaTransaction, kysely } from "../../../db/kysely";
import type { CurrentSubscription } from "../../../services/billing/account-status-rules";

export type StripeEventHandler<T> = (tx: Prisma.TransactionClient, object: T, eventCreated: Date) => Promise<void>;

/**
 * The open account a Stripe object belongs to: by our id when Stripe carries
 * it, else by customer. A closed account is never found, so no event (a late
 * checkout, an invoice paid) can bring it back (docs/decisions.md §20).
 */
export async function findAccountId(
  tx: Prisma.TransactionClient,
  ref: { accountId?: string | null; customer?: string | null },
): Promise<string | null> {
  if (ref.accountId) {
    const byId = await tx.account.findFirst({ where: { id: ref.accountId, deletedAt: null }, select: { id: true } });
    if (byId) return byId.id;
  }
  if (ref.customer) {
    const byCustomer = await tx.account.findFirst({
      where: { stripeCustomerId: ref.customer, deletedAt: null },
      select: { id: true },
    });
    if (byCustomer) return byCustomer.id;
  }
  return null;
}

export type BillingAccount = CurrentSubscription & { id: string };

/**
 * The account and its current subscription, locked for the rest of the event's
 * transaction: two events of one account (Stripe sends several at once) are
 * decided one after the other, each seeing the other's effect.
 */
export async function lockBillingAccount(
  tx: Prisma.TransactionClient,
  ref: { accountId?: string | null; customer?: string | null },
): Promise<BillingAccount | null> {
  const id = await findAccountId(tx, ref);
  if (!id) return null;
  const rows = await inPrismaTransaction(
    tx,
    kysely()
      .selectFrom("Account")
      .select(["stripeSubscriptionId", "subscriptionStatus"])
      .where("id", "=", id)
      .forUpdate(),
  );
  const row = rows[0];
  return row ? { id, subscriptionId: row.stripeSubscriptionId, subscriptionStatus: row.subscriptionStatus } : null;
}

/**
 * Applies a status (and what comes with it) only if this event is not older
 * than the newest one already applied: Stripe delivers out of order, and an
 * old event must not undo what a newer one did.
 */
export async function applyBillingState(
  tx: Prisma.TransactionClient,
  accountId: string,
  eventCreated: Date,
  state: {
    status?: AccountStatus | null;
    stripeSubscriptionId?: string | null;
    subscriptionStatus?: string | null;
    currentPeriodStart?: Date | null;
    currentPeriodEnd?: Date | null;
    stripeCustomerId?: string | null;
  },
): Promise<boolean> {
  const data: Prisma.AccountUpdateManyMutationInput = { billingStateAt: eventCreated };
  if (state.status) data.status = state.status;
  if (state.stripeSubscriptionId) data.stripeSubscriptionId = state.stripeSubscriptionId;
  if (state.subscriptionStatus) data.subscriptionStatus = state.subscriptionStatus;
  if (state.currentPeriodStart && state.currentPeriodEnd) {
    data.currentPeriodStart = state.currentPeriodStart;
    data.currentPeriodEnd = state.currentPeriodEnd;
  }
  if (state.stripeCustomerId) data.stripeCustomerId = state.stripeCustomerId;
  const { count } = await tx.account.updateMany({
    where: {
      id: accountId,
      deletedAt: null,
      OR: [{ billingStateAt: null }, { billingStateAt: { lte: eventCreated } }],
    },
    data,
  });
  return count === 1;
}

/**
 * A saved payment method only ever turns `hasPaymentMethod` on here, whatever
 * the event's age: Checkout saves the card on the subscription, not on the
 * customer, so a customer without a default says nothing about the card.
 */
export async function notePaymentMethod(
  tx: Prisma.TransactionClient,
  accountId: string,
  paymentMethod: string | null,
): Promise<void> {
  if (paymentMethod) await tx.account.update({ where: { id: accountId }, data: { hasPaymentMethod: true } });
}

export const fromUnix = (seconds: number | null | undefined): Date | null =>
  typeof seconds === "number" ? new Date(seconds * 1000) : null;

/** Stripe fields that hold an id or, when expanded, the object itself. */
export const idOf = (ref: string | { id: string } | null | undefined): string | null =>
  typeof ref === "string" ? ref : (ref?.id ?? null);
