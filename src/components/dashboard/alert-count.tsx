"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/client/trpc/client";

/**
 * The nav's badge: alerts raised in the last 24 hours (recoveries not counted), refreshed every minute. A
 * count of the last day rather than of "unseen" ones: it needs no per-user read state and is the same for
 * every member of the account. Nothing is shown at zero.
 */
export function AlertCount() {
  const trpc = useTRPC();
  const count = useQuery(trpc.alerts.recentCount.queryOptions(undefined, { refetchInterval: 60_000 }));
  const n = count.data?.count ?? 0;
  if (!n) return null;
  return (
    <span
      className="ml-2 inline-flex min-w-5 items-center justify-center rounded-full bg-red-600 px-1.5 text-xs font-semibold text-white"
      data-testid="alert-count"
      title={`${n} alert${n === 1 ? "" : "s"} in the last 24 hours`}
    >
      {n}
      <span className="sr-only"> in the last 24 hours</span>
    </span>
  );
}
