"use client";

import { LocalTime } from "@/components/ui/local-time";
import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { PageHeader, Panel } from "@/components/ui/card";
import { QueryState } from "@/components/ui/query-state";
import { EmptyState } from "@/components/ui/states";
import { useTRPC } from "@/client/trpc/client";
import { ALERT_DESCRIPTIONS, type AlertType } from "@/shared/schemas/alerts";

const RECOVERIES = new Set<string>(["alert.endpoint_recovered", "alert.fallback_rate_recovered"]);

/** docs/decisions.md §16: the account's alerts of the last 30 days, newest first, each with what to do. */
export function Alerts() {
  const trpc = useTRPC();
  const list = useInfiniteQuery(
    trpc.alerts.list.infiniteQueryOptions({ limit: 50 }, { getNextPageParam: (p) => p.nextCursor ?? undefined }),
  );
  return (
    <>
      <PageHeader
        title="Alerts"
        description={
          <>
            Trouble Routekit noticed before your callers did: failing endpoints, deliveries that gave up, fallbacks
            answering your calls, rejected Twilio credentials, numbers pointed elsewhere and failed payments. Each is
            also sent to endpoints subscribed to its <code>alert.*</code> type and by email (switch emails per kind in{" "}
            <Link href="/dashboard/settings" className="underline">
              Settings
            </Link>
            ). At most one of a kind about the same thing per hour; the last 30 days.
          </>
        }
      />
      <Panel>
        <QueryState
          query={list}
          loadingLabel="Loading alerts…"
          empty={(data) =>
            data.pages[0]?.alerts.length === 0 ? (
              <EmptyState title="No alerts" data-testid="alerts-empty">
                Nothing needed your attention in the last 30 days.
              </EmptyState>
            ) : null
          }
        >
          {(data) => (
            <>
              <ul className="divide-y divide-slate-100 dark:divide-slate-800" data-testid="alert-list">
                {data.pages
                  .flatMap((p) => p.alerts)
                  .map((a) => (
                    <li key={a.id} className="py-4" data-testid="alert-item">
                      <div className="flex flex-wrap items-center gap-2">
                        <Badge tone={RECOVERIES.has(a.type) ? "green" : a.resolvedAt ? "slate" : "red"}>
                          {RECOVERIES.has(a.type) ? "Recovered" : a.resolvedAt ? "Resolved" : "Alert"}
                        </Badge>
                        <code className="text-sm font-semibold">{a.type}</code>
                        <span className="text-xs text-slate-500">
                          <LocalTime iso={a.createdAt} />
                        </span>
                      </div>
                      <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">
                        {ALERT_DESCRIPTIONS[a.type as AlertType]}. About the {a.subject.type}{" "}
                        <code className="break-all">{a.subject.url ?? a.subject.id}</code>, since{" "}
                        <LocalTime iso={a.since} />.
                      </p>
                      <p className="mt-1 text-sm text-slate-900 dark:text-slate-100" data-testid="alert-how-to-fix">
                        <span className="font-medium">What to do: </span>
                        {a.howToFix}
                      </p>
                    </li>
                  ))}
              </ul>
              {list.hasNextPage ? (
                <div className="mt-4">
                  <Button variant="secondary" onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage}>
                    Older alerts
                  </Button>
                </div>
              ) : null}
            </>
          )}
        </QueryState>
      </Panel>
    </>
  );
}
