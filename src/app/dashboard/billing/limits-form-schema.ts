import { z } from "zod";
import { ZPutLimitsInput } from "@/shared/schemas/limits";

/** What the limits form holds: text boxes and a checkbox. */
export type LimitsFormValues = {
  monthlyBudget: string;
  alertThresholds: string;
  hardCap: boolean;
  maxConcurrentCalls: string;
};

type Limits = {
  monthlyBudget: number | null;
  alertThresholds: number[];
  hardCap: boolean;
  maxConcurrentCalls: number | null;
};

/** The stored limits as form values. */
export function limitsFormValues(l: Limits): LimitsFormValues {
  return {
    monthlyBudget: l.monthlyBudget === null ? "" : String(l.monthlyBudget),
    alertThresholds: l.alertThresholds.join(", "),
    hardCap: l.hardCap,
    maxConcurrentCalls: l.maxConcurrentCalls === null ? "" : String(l.maxConcurrentCalls),
  };
}

// An empty box means "none" (null); anything else is read as a number for the API's own rule to judge.
const blankAsNull = (v: unknown) => (typeof v === "string" ? (v.trim() === "" ? null : Number(v.trim())) : v);
const percents = (v: unknown) =>
  typeof v === "string"
    ? v
        .split(/[\s,%]+/)
        .filter(Boolean)
        .map(Number)
    : v;

/** PUT /api/account/limits's own schema, reading the form's strings ("50, 80, 100" is three thresholds). */
export const limitsFormSchema = ZPutLimitsInput.extend({
  monthlyBudget: z.preprocess(blankAsNull, ZPutLimitsInput.shape.monthlyBudget),
  alertThresholds: z.preprocess(percents, ZPutLimitsInput.shape.alertThresholds),
  maxConcurrentCalls: z.preprocess(blankAsNull, ZPutLimitsInput.shape.maxConcurrentCalls),
});

export const LIMITS_FIELD_NAMES = {
  monthlyBudget: "Monthly budget",
  alertThresholds: "Alert thresholds",
  hardCap: "Hard cap",
  maxConcurrentCalls: "Concurrent calls",
} as const;
