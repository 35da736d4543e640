import { sql } from "kysely";
import type { SqlTransaction } from "../../db/sql-transaction";
import { AppError } from "../../errors/app-error";
import { usagePeriod } from "../usage/usage-periods";
import { concurrencyCapSet, liveSlotFree, monthTotalJoin, spendCapReached } from "./guardrails";

/**
 * POST /api/outbound's hard cap (docs/decisions.md §17): read from the running totals the final-status
 * transaction keeps, as the engine reads them for an inbound call.
 */
export async function refuseOverSpendCap(trx: SqlTransaction, accountId: string, at = new Date()): Promise<void> {
  const row = await trx
    .selectFrom("AccountLimit as l")
    .leftJoin("UsageTotal as um", (j) => j.on(monthTotalJoin("l", "um", "l.accountId", usagePeriod(at))))
    .select([
      "l.monthlyBudget",
      sql<string>`coalesce(${sql.ref("um.totalCost")}, 0)`.as("spent"),
      spendCapReached("l", "um").as("reached"),
    ])
    .where("l.accountId", "=", accountId)
    .executeTakeFirst();
  if (row?.reached)
    throw new AppError(
      "SPEND_LIMIT_REACHED",
      `This month's usage cost ($${Number(row.spent).toFixed(2)}) has reached the monthly budget ($${Number(row.monthlyBudget).toFixed(2)}) and the hard cap is on; raise the budget or turn the hard cap off (PUT /api/account/limits).`,
    );
}

/**
 * Counts a call as live unless the account is at maxConcurrentCalls: one conditional increment (so two
 * requests at once cannot both pass a check made before the other's increment) and the call's slot, given
 * back by the transaction that closes it (calls/close-call.ts `freeLiveSlot`). False when refused.
 */
export async function takeLiveSlot(trx: SqlTransaction, opts: { accountId: string; callId: string }): Promise<boolean> {
  // Without maxConcurrentCalls nothing is counted (engine/sql/insert-call.ts insertLive says why); setting one counts the calls live then.
  const limit = await trx
    .selectFrom("AccountLimit")
    .select("maxConcurrentCalls")
    .where("accountId", "=", opts.accountId)
    .executeTakeFirst();
  if (limit?.maxConcurrentCalls == null) return true;
  const admitted = await trx
    .updateTable("AccountLimit")
    .set((eb) => ({ liveCalls: eb("AccountLimit.liveCalls", "+", 1) }))
    .where("accountId", "=", opts.accountId)
    .where(concurrencyCapSet("AccountLimit"))
    .where(liveSlotFree("AccountLimit"))
    .returning("accountId")
    .executeTakeFirst();
  if (!admitted) return false;
  await trx.insertInto("LiveCallSlot").values({ callId: opts.callId, accountId: opts.accountId }).execute();
  return true;
}
