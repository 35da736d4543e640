import type { Prisma } from "@/generated/prisma/client";
import type { AccountStatus } from "@/generated/prisma/enums";

export type StripeEventHandler<T> = (tx: Prisma.TransactionClient, object: T, eventCreated: Date) => Promise<void>;

/** The account a Stripe object belongs to: by our id when Stripe carries it, else by customer. */
export async function findAccountId(tx: Prisma.TransactionClient, ref: { accountId?: string | null; customer?: string | null }): Promise<string | null> {
  if (ref.accountId) {
    const byId = await tx.account.findUnique({ where: { id: ref.accountId }, select: { id: true } });
    if (byId) return byId.id;
  }
  if (ref.customer) {
    const byCustomer = await tx.account.findUnique({ where: { stripeCustomerId: ref.customer }, select: { id: true } });
    if (byCustomer) return byCustomer.id;
  }
  return null;
}

/**
 * Applies a status (and what comes with it) only if this event is not older
 * than the newest one already applied: Stripe delivers out of order, and an
 * old `invoice.payment_failed` must not suspend an account a newer payment
 * re-activated.
 */
export async function applyBillingState(
  tx: Prisma.TransactionClient,
  accountId: string,
  eventCreated: Date,
  state: { status?: AccountStatus | null; stripeSubscriptionId?: string | null; currentPeriodStart?: Date | null; currentPeriodEnd?: Date | null; stripeCustomerId?: string },
): Promise<boolean> {
  const data: Prisma.AccountUpdateManyMutationInput = { billingStateAt: eventCreated };
  if (state.status) data.status = state.status;
  if (state.stripeSubscriptionId) data.stripeSubscriptionId = state.stripeSubscriptionId;
  if (state.currentPeriodStart && state.currentPeriodEnd) {
    data.currentPeriodStart = state.currentPeriodStart;
    data.currentPeriodEnd = state.currentPeriodEnd;
  }
  if (state.stripeCustomerId) data.stripeCustomerId = state.stripeCustomerId;
  const { count } = await tx.account.updateMany({
    where: { id: accountId, OR: [{ billingStateAt: null }, { billingStateAt: { lte: eventCreated } }] },
    data,
  });
  return count === 1;
}

export const fromUnix = (seconds: number | null | undefined): Date | null => (typeof seconds === "number" ? new Date(seconds * 1000) : null);

/** Stripe fields that hold an id or, when expanded, the object itself. */
export const idOf = (ref: string | { id: string } | null | undefined): string | null => (typeof ref === "string" ? ref : (ref?.id ?? null));
