/**
 * The keys of the running totals (UsageTotal.period), built here and nowhere else: the UTC month, the UTC
 * day, one number's UTC day (its dailyMinuteCap counts it, docs/decisions.md §17) and a Stripe billing
 * period. The SQL twin of a key (numberDayPeriodSql) is here too, so a statement reads the row that
 * the final-status transaction writes.
 */
import { sql, type RawBuilder } from "kysely";

const NUMBER_DAY_PREFIX = "n:";

/** The running-totals key of a moment: its UTC calendar month. */
export function usagePeriod(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** The running-totals key of a moment's UTC day (the dashboard's daily chart). */
export function dayPeriod(at: Date): string {
  return `d:${utcDay(at)}`;
}

/** The running-totals key of one number's UTC day: its dailyMinuteCap counts these minutes (docs/decisions.md §17). */
export function numberDayPeriod(phoneNumberId: string, at: Date): string {
  return `${NUMBER_DAY_PREFIX}${phoneNumberId}:${utcDay(at)}`;
}

/** The UTC day of a moment, `YYYY-MM-DD`: the day part of the day keys. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** numberDayPeriod in SQL, for a number's id column and a day (utcDay) given as a parameter. */
export function numberDayPeriodSql(phoneNumberIdColumn: string, day: string): RawBuilder<string> {
  return sql<string>`${sql.lit(NUMBER_DAY_PREFIX)} || ${sql.ref(phoneNumberIdColumn)} || ':' || ${day}::text`;
}

export function periodBounds(at: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { start, end };
}

/** The running-totals key of a Stripe billing period, by its start. */
export function billingPeriodKey(start: Date): string {
  return `bp:${start.toISOString()}`;
}
