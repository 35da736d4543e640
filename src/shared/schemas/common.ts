import { z } from "zod";
import { ID_MAX_CHARS, integerFormat, ISO_TIME_MAX_CHARS, SAFE_INT_MAX } from "./bounds";

export const ZTimestamp = z.iso.datetime({ offset: true }).max(ISO_TIME_MAX_CHARS).describe("ISO 8601 timestamp");

/**
 * The instants a client may ask about, in a filter or a cursor: PostgreSQL's
 * timestamptz stores only 4713 BC to 294276 AD (year 0 or a Date's year
 * -271821 is an error there, not an empty page), and no record of ours lies
 * before 1970 or after 9999.
 */
const QUERY_TIME_RANGE = {
  min: new Date("1970-01-01T00:00:00.000Z"),
  max: new Date("9999-12-31T23:59:59.999Z"),
} as const;

export function isQueryableTime(time: Date): boolean {
  const ms = time.getTime();
  return ms >= QUERY_TIME_RANGE.min.getTime() && ms <= QUERY_TIME_RANGE.max.getTime();
}

/** An ISO 8601 time in a query (`since`, `until`), within QUERY_TIME_RANGE. */
export const ZQueryTime = z.iso
  .datetime({ offset: true, message: "must be an ISO 8601 time" })
  .max(ISO_TIME_MAX_CHARS)
  .refine((v) => isQueryableTime(new Date(v)), {
    message: "must lie between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z",
  });
/** An integer from the query string (coerced), with the API's messages; chain `.default()` and `.describe()`. */
export function queryInteger(bounds: { min: number; max?: number }) {
  const max = bounds.max ?? SAFE_INT_MAX;
  return z.coerce
    .number({ message: "must be an integer" })
    .int({ message: "must be an integer" })
    .min(bounds.min, { message: `must be at least ${bounds.min}` })
    .max(max, { message: `must be at most ${max}` })
    .meta({ format: integerFormat(bounds.min, max) });
}

export const ZId = z.string().min(1).max(ID_MAX_CHARS).describe("Opaque identifier");
export { ZAccountStatus } from "./enums";
