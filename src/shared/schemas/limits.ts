import { z } from "zod";
import { boundedInt, countInt } from "./bounds";

/** docs/decisions.md §17, §22: the thresholds an account gets until it chooses its own. */
export const DEFAULT_ALERT_THRESHOLDS = [50, 80, 100] as const;

const ZMonthlyBudget = z
  .number()
  .min(0)
  .max(1_000_000_000)
  // Cents: 19.99 is taken, 19.999 is not (compared in cents, so 0.29 * 100 = 28.999… does not trip it).
  .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, { message: "must have at most 2 decimal places" })
  .nullable()
  .describe(
    "USD of usage cost this UTC month may reach, the plan's base price excluded; at most 2 decimals. null: no budget (no alerts, no hard cap)",
  );

const ZAlertThresholds = z
  .array(boundedInt(1, 100))
  .min(1)
  .max(10)
  .refine((a) => new Set(a).size === a.length, { message: "must not repeat a threshold" })
  .describe(
    "Percents of monthlyBudget (1 to 10 unique integers from 1 to 100) at which usage.threshold_reached and an email go out, once each per month",
  );

const ZHardCap = z
  .boolean()
  .describe(
    "true: once the month's usage cost reaches monthlyBudget, new inbound calls are rejected (spend-limit-reached) and POST /api/outbound answers 402 SPEND_LIMIT_REACHED; calls already live go on",
  );

const ZMaxConcurrentCalls = boundedInt(1, 1_000_000)
  .nullable()
  .describe(
    "Calls live at once (inbound from the first voice request, outbound from POST /api/outbound, each until its final status) beyond which new ones are refused: inbound rejected (concurrency-limit-reached), outbound 429 CONCURRENCY_LIMIT. null: no cap",
  );

/** A number's dailyMinuteCap, on create and PATCH of phone numbers (docs/decisions.md §17). */
export const ZDailyMinuteCap = boundedInt(1, 1_440_000)
  .nullable()
  .describe(
    "Billed minutes this number's calls may reach in a UTC day; at the cap its new calls are rejected (daily-cap-reached) until 00:00 UTC. null: no cap",
  );

const ZLimits = z.object({
  monthlyBudget: ZMonthlyBudget,
  alertThresholds: ZAlertThresholds,
  hardCap: ZHardCap,
  maxConcurrentCalls: ZMaxConcurrentCalls,
});
export type TLimits = z.infer<typeof ZLimits>;

/** PUT replaces all four; an omitted field takes its default (docs/decisions.md §22). */
export const ZPutLimitsInput = z.object({
  monthlyBudget: ZMonthlyBudget.optional().describe(`${ZMonthlyBudget.description} Omitted: null.`),
  alertThresholds: ZAlertThresholds.optional().describe(
    `${ZAlertThresholds.description}. Omitted: [${DEFAULT_ALERT_THRESHOLDS.join(", ")}].`,
  ),
  hardCap: ZHardCap.optional().describe(`${ZHardCap.description}. Omitted: false.`),
  maxConcurrentCalls: ZMaxConcurrentCalls.optional().describe(`${ZMaxConcurrentCalls.description}. Omitted: null.`),
});
export type TPutLimitsInput = z.infer<typeof ZPutLimitsInput>;

export const ZLimitsOutput = z.object({
  limits: ZLimits.describe("The account's guardrails"),
  current: z
    .object({
      month: z
        .string()
        .regex(/^\d{4}-\d{2}$/)
        .max(7)
        .describe('The UTC month the figures are for, "2026-11"'),
      spent: z.number().describe("The month's usage cost so far (USD), as monthlyBudget counts it"),
      liveCalls: countInt().describe("Calls live now, as maxConcurrentCalls counts them"),
      thresholdsReached: z
        .array(boundedInt(1, 100))
        .max(100)
        .describe("The thresholds already crossed this month (each has sent its usage.threshold_reached)"),
    })
    .describe("Where the account stands against its limits now"),
});
