import type { Updateable } from "kysely";
import type { AccountStatus } from "@/generated/prisma/enums";
import { AppError } from "../../../errors/app-error";
import { now, type DB } from "../../../db/kysely";
import type { SqlTransaction } from "../../../db/sql-transaction";
import type { CurrentSubscription } from "../../../services/billing/account-status-rules";

export type StripeEventHandler<T> = (trx: SqlTransaction, object: T, eventCreated: Date) => Promise<void>;

/**
 * The open account a Stripe object belongs to: by our id when Stripe carries
 * it, else by customer. A closed account is never found, so no event (a late
 * checkout, an invoice paid) can bring it back (docs/decisions.md §20).
 */
export async function findAccountId(
  trx: SqlTransaction,
  ref: { accountId?: string | null; customer?: string | null },
): Promise<string | null> {
  if (ref.accountId) {
    const byId = await trx
      .selectFrom("Account")
      .select("id")
      .where("id", "=", ref.accountId)
      .where("deletedAt", "is", null)
      .limit(1)
      .executeTakeFirst();
    if (byId) return byId.id;
  }
  if (ref.customer) {
    const byCustomer = await trx
      .selectFrom("Account")
      .select("id")
      .where("stripeCustomerId", "=", ref.customer)
      .where("deletedAt", "is", null)
      .limit(1)
      .executeTakeFirst();
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
  trx: SqlTransaction,
  ref: { accountId?: string | null; customer?: string | null },
): Promise<BillingAccount | null> {
  const id = await findAccountId(trx, ref);
  if (!id) return null;
  const row = await trx
    .selectFrom("Account")
    .select(["stripeSubscriptionId", "subscriptionStatus"])
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();
  return row ? { id, subscriptionId: row.stripeSubscriptionId, subscriptionStatus: row.subscriptionStatus } : null;
}

/**
 * Applies a status (and what comes with it) only if this event is not older
 * than the newest one already applied: Stripe delivers out of order, and an
 * old event must not undo what a newer one did.
 */
export async function applyBillingState(
  trx: SqlTransaction,
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
  const data: Updateable<DB["Account"]> = { billingStateAt: eventCreated };
  if (state.status) data.status = state.status;
  if (state.stripeSubscriptionId) data.stripeSubscriptionId = state.stripeSubscriptionId;
  if (state.subscriptionStatus) data.subscriptionStatus = state.subscriptionStatus;
  if (state.currentPeriodStart && state.currentPeriodEnd) {
    data.currentPeriodStart = state.currentPeriodStart;
    data.currentPeriodEnd = state.currentPeriodEnd;
  }
  if (state.stripeCustomerId) data.stripeCustomerId = state.stripeCustomerId;
  const { numUpdatedRows } = await trx
    .updateTable("Account")
    .set({ ...data, updatedAt: now() })
    .where("id", "=", accountId)
    .where("deletedAt", "is", null)
    .where((eb) => eb.or([eb("billingStateAt", "is", null), eb("billingStateAt", "<=", eventCreated)]))
    .executeTakeFirst();
  return numUpdatedRows === 1n;
}

/**
 * A saved payment method only ever turns `hasPaymentMethod` on here, whatever
 * the event's age: Checkout saves the card on the subscription, not on the
 * customer, so a customer without a default says nothing about the card.
 */
export async function notePaymentMethod(
  trx: SqlTransaction,
  accountId: string,
  paymentMethod: string | null,
): Promise<void> {
  if (!paymentMethod) return;
  const { numUpdatedRows } = await trx
    .updateTable("Account")
    .set({ hasPaymentMethod: true, updatedAt: now() })
    .where("id", "=", accountId)
    .executeTakeFirst();
  // As an update by id in Prisma did (P2025, 404): a missing account fails the event and its record.
  if (numUpdatedRows !== 1n) throw new AppError("NOT_FOUND");
}

export const fromUnix = (seconds: number | null | undefined): Date | null =>
  typeof seconds === "number" ? new Date(seconds * 1000) : null;

/** Stripe fields that hold an id or, when expanded, the object itself. */
export const idOf = (ref: string | { id: string } | null | undefined): string | null =>
  typeof ref === "string" ? ref : (ref?.id ?? null);
