/**
 * docs/decisions.md §17: the guardrails a new call meets, each rule written once, as SQL the engine's
 * lookup composes into its one read (engine/sql/lookup.ts) and the API's checks run on their own
 * (admission.ts). Each reads the running totals the final-status transaction keeps (usage-periods.ts
 * names their keys). A guardrail is "set" when the account or number has it at all, and "reached" when
 * a call must be refused; a call of an account and number with none set is the plain case, the one the
 * engine's routing cache may insert on (engine/routing-cache.ts): a new guardrail goes into GUARDRAILS
 * below, and the cache no longer skips it.
 *
 * Arguments are table aliases as the statement names them: `l` an AccountLimit row (left-joined: null
 * when the account has no limits), `n` the PhoneNumber, `um` and `ud` the month's and the number's day's
 * UsageTotal rows. Their behaviour, engine and API alike: tests/integration/limits.test.ts.
 */
import { sql, type RawBuilder, type SqlBool } from "kysely";
import { numberDayPeriodSql } from "../usage/usage-periods";

const col = (alias: string, column: string) => sql.ref(`${alias}.${column}`);

/** The spend cap: hardCap on, with a monthlyBudget. */
function spendCapSet(l: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${col(l, "hardCap")} = true and ${col(l, "monthlyBudget")} is not null`;
}

/**
 * The month's usage cost at or past monthlyBudget, with hardCap on: the next call is refused. A budget of
 * 0 is reached before any usage (no `um` row yet). `um` is joined only where spendCapSet holds.
 */
export function spendCapReached(l: string, um: string): RawBuilder<boolean> {
  return sql<boolean>`coalesce(${col(l, "hardCap")} and ${col(um, "totalCost")} >= ${col(l, "monthlyBudget")}, ${col(l, "hardCap")} and ${col(l, "monthlyBudget")} <= 0, false)`;
}

/** The join of the month's total `um` (only under a spend cap: others read no total). */
export function monthTotalJoin(l: string, um: string, accountIdColumn: string, month: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${col(um, "accountId")} = ${sql.ref(accountIdColumn)} and ${col(um, "period")} = ${month} and ${spendCapSet(l)}`;
}

/** The number's dailyMinuteCap. */
function dailyCapSet(n: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${col(n, "dailyMinuteCap")} is not null`;
}

/** The number's billed minutes today (UTC) at or past its dailyMinuteCap. */
export function dailyCapReached(n: string, ud: string): RawBuilder<boolean> {
  return sql<boolean>`(coalesce(${col(ud, "billedMinutes")}, 0) >= ${col(n, "dailyMinuteCap")}) is true`;
}

/** The join of the number's day total `ud` (only under a daily cap), for `day` as utcDay gives it. */
export function dayTotalJoin(n: string, ud: string, accountIdColumn: string, day: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${col(ud, "accountId")} = ${sql.ref(accountIdColumn)} and ${col(ud, "period")} = ${numberDayPeriodSql(`${n}.id`, day)} and ${dailyCapSet(n)}`;
}

/**
 * maxConcurrentCalls: the account's new calls are admitted against its live count. Only then is the count
 * kept (one row per account that every call would otherwise write: docs/performance.md).
 */
export function concurrencyCapSet(l: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${col(l, "maxConcurrentCalls")} is not null`;
}

/** Room for one more live call: the condition of the conditional increment that admits it, atomically. */
export function liveSlotFree(l: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${col(l, "liveCalls")} < ${col(l, "maxConcurrentCalls")}`;
}

/** Every guardrail, by what makes it apply: the plain case is none of them. */
const GUARDRAILS: ((aliases: { l: string; n: string }) => RawBuilder<SqlBool>)[] = [
  ({ l }) => spendCapSet(l),
  ({ n }) => dailyCapSet(n),
  ({ l }) => concurrencyCapSet(l),
];

/** No guardrail applies to a call of this account (`l`, left-joined) and number (`n`). */
export function noGuardrailSet(l: string, n: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`not coalesce(${sql.join(
    GUARDRAILS.map((set) => sql`(${set({ l, n })})`),
    sql` or `,
  )}, false)`;
}
