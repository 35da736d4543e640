/** docs/decisions.md §1: minutes are billed per call, rounded up; a call of 0 seconds bills 0. */
export function billedMinutes(durationSeconds: number): number {
  return durationSeconds <= 0 ? 0 : Math.ceil(durationSeconds / 60);
}

/** Money to 6 decimal places, so sums of per-minute rates do not drift. */
export function roundMoney(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

export type CostBreakdown = {
  durationSeconds: number;
  billedMinutes: number;
  perMinuteRate: number;
  usageCost: number;
  totalCost: number;
  currency: "usd";
};

export function costBreakdown(opts: { durationSeconds: number; perMinuteRate: number }): CostBreakdown {
  const minutes = billedMinutes(opts.durationSeconds);
  const usageCost = roundMoney(minutes * opts.perMinuteRate);
  return {
    durationSeconds: opts.durationSeconds,
    billedMinutes: minutes,
    perMinuteRate: opts.perMinuteRate,
    usageCost,
    totalCost: usageCost,
    currency: "usd",
  };
}

/** The running-totals key of a moment: its UTC calendar month. */
export function usagePeriod(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** The running-totals key of a moment's UTC day (the dashboard's daily chart). */
export function dayPeriod(at: Date): string {
  return `d:${at.toISOString().slice(0, 10)}`;
}

/** The running-totals key of one number's UTC day: its dailyMinuteCap counts these minutes (docs/decisions.md §17). */
export function numberDayPeriod(phoneNumberId: string, at: Date): string {
  return `n:${phoneNumberId}:${at.toISOString().slice(0, 10)}`;
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
