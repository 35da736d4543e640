import { z } from "zod";

export const ZTimestamp = z.iso.datetime({ offset: true }).describe("ISO 8601 timestamp");
/** An integer from the query string (coerced), with the API's messages; chain `.default()` and `.describe()`. */
export function queryInteger(bounds: { min: number; max?: number }) {
  const atLeast = z.coerce
    .number({ message: "must be an integer" })
    .int({ message: "must be an integer" })
    .min(bounds.min, { message: `must be at least ${bounds.min}` });
  return bounds.max === undefined ? atLeast : atLeast.max(bounds.max, { message: `must be at most ${bounds.max}` });
}

export const ZId = z.string().min(1).max(64).describe("Opaque identifier");
export { ZAccountStatus } from "./enums";
