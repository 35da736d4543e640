import { sql } from "kysely";
import { kysely, now } from "../../db/kysely";
import { sqlTransaction, type SqlTransaction } from "../../db/sql-transaction";
import { DEFAULT_ALERT_THRESHOLDS, type TLimits, type TPutLimitsInput } from "../../../shared/schemas/limits";
import { usagePeriod } from "../usage/usage-periods";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";

/** The limits an account without a row has (docs/decisions.md §17, §22). */
const DEFAULT_LIMITS: TLimits = {
  monthlyBudget: null,
  alertThresholds: [...DEFAULT_ALERT_THRESHOLDS],
  hardCap: false,
  maxConcurrentCalls: null,
};

type LimitRow = {
  monthlyBudget: string | null;
  alertThresholds: number[] | null;
  hardCap: boolean;
  maxConcurrentCalls: number | null;
};

/** A stored row (or none) as the API shows it. */
function limitsOf(row: LimitRow | undefined | null): TLimits {
  if (!row) return { ...DEFAULT_LIMITS, alertThresholds: [...DEFAULT_LIMITS.alertThresholds] };
  return {
    monthlyBudget: row.monthlyBudget === null ? null : Number(row.monthlyBudget),
    alertThresholds: row.alertThresholds ?? [...DEFAULT_ALERT_THRESHOLDS],
    hardCap: row.hardCap,
    maxConcurrentCalls: row.maxConcurrentCalls,
  };
}

/** GET /api/account/limits: the limits and where the month stands against them. */
export async function getAccountLimits(opts: { accountId: string; now?: Date }) {
  const month = usagePeriod(opts.now ?? new Date());
  const db = kysely();
  const [row, total, crossed, open] = await Promise.all([
    db
      .selectFrom("AccountLimit")
      .select(["monthlyBudget", "alertThresholds", "hardCap", "maxConcurrentCalls", "liveCalls"])
      .where("accountId", "=", opts.accountId)
      .executeTakeFirst(),
    db
      .selectFrom("UsageTotal")
      .select("totalCost")
      .where("accountId", "=", opts.accountId)
      .where("period", "=", month)
      .executeTakeFirst(),
    db
      .selectFrom("UsageThresholdCrossing")
      .select("threshold")
      .where("accountId", "=", opts.accountId)
      .where("month", "=", month)
      .orderBy("threshold")
      .execute(),
    // Without a cap the engine keeps no count (engine/sql/insert-call.ts insertLive): the calls themselves say.
    db
      .selectFrom("Call")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("accountId", "=", opts.accountId)
      .where(liveCall)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    limits: limitsOf(row),
    current: {
      month,
      spent: total ? Number(total.totalCost) : 0,
      liveCalls: row?.maxConcurrentCalls != null ? row.liveCalls : Number(open.n),
      thresholdsReached: crossed.map((c) => c.threshold),
    },
  };
}

/**
 * PUT /api/account/limits replaces all four; an omitted field takes its default (docs/decisions.md §22).
 * The live-call count in the same row is the engine's and is never written here.
 */
export async function putAccountLimits(opts: { accountId: string; input: TPutLimitsInput; origin: AuditOrigin }) {
  const limits: TLimits = {
    monthlyBudget: opts.input.monthlyBudget ?? null,
    // Kept in ascending order: the dashboard and the crossing check read them so.
    alertThresholds: [...(opts.input.alertThresholds ?? DEFAULT_ALERT_THRESHOLDS)].sort((a, b) => a - b),
    hardCap: opts.input.hardCap ?? false,
    maxConcurrentCalls: opts.input.maxConcurrentCalls ?? null,
  };
  const values = {
    monthlyBudget: limits.monthlyBudget === null ? null : limits.monthlyBudget.toFixed(2),
    alertThresholds: limits.alertThresholds,
    hardCap: limits.hardCap,
    maxConcurrentCalls: limits.maxConcurrentCalls,
  };
  await sqlTransaction(async (trx) => {
    const before = await trx
      .selectFrom("AccountLimit")
      .select(["monthlyBudget", "alertThresholds", "hardCap", "maxConcurrentCalls"])
      .where("accountId", "=", opts.accountId)
      .executeTakeFirst();
    // The row first: its lock holds the engine's admissions of this account until the count below is in.
    await trx
      .insertInto("AccountLimit")
      .values({ accountId: opts.accountId, ...values })
      .onConflict((oc) => oc.column("accountId").doUpdateSet({ ...values, updatedAt: now() }))
      .execute();
    await recountLiveCalls(trx, opts.accountId, limits.maxConcurrentCalls !== null);
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "account.limits_changed",
      target: { type: "account", id: opts.accountId },
      details: { before: limitsOf(before), after: limits },
    });
  });
  return getAccountLimits({ accountId: opts.accountId });
}

/**
 * A call the engine saw that has not ended. No call stays open past a day: the closing rules of §14 end
 * it within 4 h 10 min, so the bound keeps the scan to the account's recent calls.
 */
// A simulated call (docs/decisions.md §21) never counts, even in the moment before it ends.
const liveCall = sql<boolean>`"endedAt" IS NULL AND "createdAt" > now() - interval '1 day' AND NOT "test"`;

/**
 * With maxConcurrentCalls set, every call live now holds a slot and is counted, so the cap is exact from
 * here on (a call starting in the same instant as the change may go uncounted until it ends); without
 * one, nothing is counted. Runs with every change of the limits, so a count can never drift for long.
 */
async function recountLiveCalls(trx: SqlTransaction, accountId: string, counted: boolean): Promise<void> {
  if (!counted) {
    await trx.deleteFrom("LiveCallSlot").where("accountId", "=", accountId).execute();
    await trx.updateTable("AccountLimit").set({ liveCalls: 0 }).where("accountId", "=", accountId).execute();
    return;
  }
  await trx
    .insertInto("LiveCallSlot")
    .columns(["callId", "accountId"])
    .expression((eb) =>
      eb
        .selectFrom("Call")
        .select(["Call.id", "Call.accountId"])
        .where("Call.accountId", "=", accountId)
        .where(liveCall),
    )
    .onConflict((oc) => oc.column("callId").doNothing())
    .execute();
  await trx
    .updateTable("AccountLimit")
    .set((eb) => ({
      liveCalls: eb
        .selectFrom("LiveCallSlot")
        .select(eb.fn.countAll<number>().as("n"))
        .where("accountId", "=", accountId),
    }))
    .where("accountId", "=", accountId)
    .execute();
}
