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
