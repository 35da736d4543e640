import { z } from "zod";
import { queryInteger } from "./common";
import { boundedInt, countInt, PAGE_MAX_ITEMS } from "./bounds";

/** docs/decisions.md §9: limit 1.., default 50, above 100 clamped (and the applied value echoed); offset 0.., default 0. */
export const ZPagination = z.object({
  limit: queryInteger({ min: 1 })
    .default(50)
    .transform((v) => Math.min(v, PAGE_MAX_ITEMS))
    .describe("Page size, at least 1 (default 50); more than 100 is clamped to 100"),
  offset: queryInteger({ min: 0 }).default(0).describe("Rows to skip (default 0)"),
});
export const ZPageInfo = z.object({
  total: countInt().describe("Matching rows in all pages"),
  limit: boundedInt(1, PAGE_MAX_ITEMS).describe("The page size applied (a limit above 100 is echoed as 100)"),
  offset: countInt().describe("Rows skipped"),
});
