/** How the dashboard writes money, times and durations: one place, so every page agrees. */
export function usd(amount: number, opts: { precise?: boolean } = {}): string {
  const digits = opts.precise ? 4 : 2;
  return new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: "USD",
    minimumFractionDigits: 2,
    maximumFractionDigits: digits,
  }).format(amount);
}

/**
 * A status code as the interface shows it, in one case everywhere: `ACTIVE` reads "Active", `in-progress`
 * "In progress", `no-answer` "No answer". The code itself stays in the API and in each badge's title.
 */
export function statusLabel(code: string): string {
  const words = code.toLowerCase().replace(/[-_]+/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function day(iso: string): string {
  return new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" }).format(
    new Date(`${iso.slice(0, 10)}T00:00:00Z`),
  );
}

/** A UTC calendar month key ("2026-11") as people say it ("November 2026"). */
export function monthName(period: string): string {
  const date = new Date(`${period.slice(0, 7)}-01T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return period;
  return new Intl.DateTimeFormat("en-US", { month: "long", year: "numeric", timeZone: "UTC" }).format(date);
}

export function duration(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return m ? `${m} min ${s} s` : `${s} s`;
}

/** An entry's time from the call's start, to the millisecond: "+0.012 s", "+3 min 2.504 s". */
export function sinceStart(startedAt: string, at: string): string {
  const ms = Math.max(0, new Date(at).getTime() - new Date(startedAt).getTime());
  const minutes = Math.floor(ms / 60_000);
  const seconds = ((ms % 60_000) / 1000).toFixed(3);
  return minutes ? `+${minutes} min ${seconds} s` : `+${seconds} s`;
}
