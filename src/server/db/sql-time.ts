/**
 * Timestamps in plain SQL, the way Prisma keeps them: UTC wall time in
 * `timestamp(3)` columns, whatever the session's or the process's time zone.
 * Parameters go in as ISO strings (`Date#toISOString()`).
 */

/** The current time, for a column. */
export const UTC_NOW = `(now() AT TIME ZONE 'UTC')`;

/** Parameter `$n` (an ISO string or null), for a column. */
export const utcParam = (n: number) => `($${n}::timestamptz AT TIME ZONE 'UTC')`;

/** A column read back as a moment `pg` parses correctly into a Date. */
export const utcColumn = (column: string, as: string) => `(${column} AT TIME ZONE 'UTC') AS "${as}"`;
