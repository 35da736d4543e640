"use client";

import { useHydrated } from "@/client/use-hydrated";

const UTC = (iso: string) => `${iso.replace("T", " ").replace(/(\.\d+)?Z$/, "")} UTC`;

/**
 * The dashboard's one way to show a time: to the second (or the millisecond, with `ms`), in the viewer's time
 * zone, the UTC time on hover. The server's HTML, which cannot know the viewer's zone, shows UTC until the page
 * is hydrated, so the two never disagree.
 */
export function LocalTime({ iso, ms = false, ...rest }: { iso: string | null; ms?: boolean; "data-testid"?: string }) {
  const hydrated = useHydrated();
  if (!iso) return <span {...rest}>—</span>;
  const d = new Date(iso);
  const local = new Intl.DateTimeFormat(undefined, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    ...(ms && { fractionalSecondDigits: 3 as const }),
    ...(!hydrated && { timeZone: "UTC", timeZoneName: "short" as const }),
  }).format(d);
  return (
    <time dateTime={iso} title={UTC(iso)} {...rest}>
      {local}
    </time>
  );
}
