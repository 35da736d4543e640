import { z } from "zod";
import { queryInteger } from "./common";

/** docs/decisions.md §9: limit 1.., default 50, above 100 clamped (and the applied value echoed); offset 0.., default 0. */
export const ZPagination = z.object({
  limit: queryInteger({ min: 1 })
    .default(50)
    .transform((v) => Math.min(v, 100))
    .describe("Page size, at least 1 (default 50); more than 100 is clamped to 100"),
  offset: queryInteger({ min: 0 }).default(0).describe("Rows to skip (default 0)"),
});
export const ZPageInfo = z.object({
  total: z.number().int().describe("Matching rows in all pages"),
  limit: z.number().int().describe("The page size applied (a limit above 100 is echoed as 100)"),
  offset: z.number().int().describe("Rows skipped"),
});
