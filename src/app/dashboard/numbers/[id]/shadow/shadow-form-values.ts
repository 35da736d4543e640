import { z } from "zod";

/**
 * The shadow form's boxes (docs/decisions.md §23) and the API's `shadow` they make: the sample rate is typed as a
 * percentage (the API takes 0–1), and the end as the browser's local date and time (the API takes an ISO instant).
 */
export type ShadowFormValues = { onCallStartUrl: string; samplePercent: string; until: string };
type Shadow = { onCallStartUrl: string; sampleRate: number; until: string | null };

/** What the form starts with: the number's shadow when it has one, else an empty URL, every call, no end. */
export function shadowFormValues(shadow: Shadow | null): ShadowFormValues {
  return {
    onCallStartUrl: shadow?.onCallStartUrl ?? "",
    samplePercent: shadow ? percent(shadow.sampleRate) : "100",
    until: shadow?.until ? localInputOf(shadow.until) : "",
  };
}

/** 0.25 → "25": at most two decimals, as a person types it. */
export function percent(rate: number): string {
  return String(Math.round(rate * 10_000) / 100);
}

/** The sample rate: empty is every call (the API's default); otherwise a percentage from 0 to 100. */
export function readSampleRate(text: string, ctx: z.RefinementCtx): number {
  const t = text.trim().replace(/%$/, "").trim();
  if (t === "") return 1;
  const n = Number(t);
  if (Number.isFinite(n) && n >= 0 && n <= 100) return Math.round(n * 100) / 10_000;
  ctx.addIssue({ code: "custom", path: ["samplePercent"], message: "must be a percentage from 0 to 100" });
  return z.NEVER;
}

/** The end: empty is none; otherwise a local date and time (`datetime-local`), sent as an ISO instant. */
export function readUntil(text: string, ctx: z.RefinementCtx): string | null {
  if (text.trim() === "") return null;
  const at = new Date(text.trim());
  if (!Number.isNaN(at.getTime())) return at.toISOString();
  ctx.addIssue({ code: "custom", path: ["until"], message: "must be a date and time" });
  return z.NEVER;
}

/** An ISO instant as a `datetime-local` box shows it: the browser's local time, to the minute. */
export function localInputOf(iso: string): string {
  const d = new Date(iso);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}
