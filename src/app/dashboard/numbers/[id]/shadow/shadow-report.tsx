"use client";

import { useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useState } from "react";
import { AnswerComparison, OutcomeBadge } from "@/components/dashboard/answer-comparison";
import { Panel } from "@/components/ui/card";
import { SelectField } from "@/components/ui/field";
import { LocalTime } from "@/components/ui/local-time";
import { QueryState } from "@/components/ui/query-state";
import { EmptyState } from "@/components/ui/states";
import { useTRPC } from "@/client/trpc/client";
import type { AppRouter } from "@/server/trpc/root";

type Report = inferRouterOutputs<AppRouter>["phoneNumbers"]["shadowReport"];

/** A mirrored call's answers land within the call's timeout: the report is read again while the tab is open. */
const POLL_MS = 4_000;

/** The narrowings offered: the whole 30 days kept, or the last so many hours. */
const WINDOWS = [
  { value: "", label: "The last 30 days (all kept)", hours: 0 },
  { value: "7d", label: "The last 7 days", hours: 24 * 7 },
  { value: "24h", label: "The last 24 hours", hours: 24 },
  { value: "1h", label: "The last hour", hours: 1 },
] as const;

/**
 * The shadow's report (docs/decisions.md §23): how many calls were mirrored and skipped, how the shadow's answers
 * compared with your backend's, both latencies side by side, and each differing or failed call with both answers.
 * A viewer reads it too.
 */
export function ShadowReport({ id }: { id: string }) {
  const trpc = useTRPC();
  // The instant is fixed when the window is picked, so the query's input (and its cache entry) holds still.
  const [range, setRange] = useState<{ value: string; since?: string }>({ value: "" });
  const input = range.since ? { id, since: range.since } : { id };
  const report = useQuery({ ...trpc.phoneNumbers.shadowReport.queryOptions(input), refetchInterval: POLL_MS });

  return (
    <div className="space-y-6">
      <Panel
        title="Report"
        actions={
          <SelectField
            label="Since"
            className="w-full sm:w-64"
            value={range.value}
            data-testid="shadow-since"
            onChange={(e) => {
              const w = WINDOWS.find((x) => x.value === e.target.value) ?? WINDOWS[0];
              setRange(
                w.hours === 0
                  ? { value: "" }
                  : { value: w.value, since: new Date(Date.now() - w.hours * 3_600_000).toISOString() },
              );
            }}
          >
            {WINDOWS.map((w) => (
              <option key={w.value} value={w.value}>
                {w.label}
              </option>
            ))}
          </SelectField>
        }
      >
        <QueryState query={report} loadingLabel="Loading the report…">
          {(data) => <Counts report={data.report} />}
        </QueryState>
      </Panel>
      <Panel title="Calls answered differently or failed">
        <QueryState query={report} loadingLabel="Loading calls…">
          {(data) => <DifferingCalls calls={data.calls} shadowSet={data.shadow !== null} />}
        </QueryState>
      </Panel>
    </div>
  );
}

function Counts({ report: r }: { report: Report["report"] }) {
  const counts: [string, number, string][] = [
    ["Mirrored", r.mirrored, "mirrored"],
    ["Skipped", r.skipped, "skipped"],
    ["Same", r.same, "same"],
    ["Different", r.different, "different"],
    ["Failed", r.failed, "failed"],
  ];
  const ms = (n: number | null) => (n === null ? "—" : `${n} ms`);
  return (
    <div className="space-y-4" data-testid="shadow-report">
      <p className="text-xs text-slate-500 dark:text-slate-400">
        Since <LocalTime iso={r.since} />. Skipped: calls not mirrored because 10 shadow requests were already in flight
        for the account.
      </p>
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-5">
        {counts.map(([label, n, key]) => (
          <div key={key} className="rounded-lg border border-slate-200 p-3 dark:border-slate-700">
            <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
            <dd
              className="mt-1 text-xl font-semibold tabular-nums text-slate-900 dark:text-slate-100"
              data-testid={`shadow-count-${key}`}
            >
              {n}
            </dd>
          </div>
        ))}
      </dl>
      <table className="w-full max-w-md text-sm" data-testid="shadow-latency">
        <caption className="text-left text-xs font-semibold text-slate-700 dark:text-slate-300">
          Time to answer, your backend beside the shadow
        </caption>
        <thead>
          <tr className="text-left text-xs text-slate-500 dark:text-slate-400">
            <th scope="col" className="py-1 font-medium">
              <span className="sr-only">Percentile</span>
            </th>
            <th scope="col" className="py-1 font-medium">
              Your backend
            </th>
            <th scope="col" className="py-1 font-medium">
              Shadow
            </th>
          </tr>
        </thead>
        <tbody className="tabular-nums">
          <tr>
            <th scope="row" className="py-1 text-left font-medium">
              p50
            </th>
            <td data-testid="primary-p50">{ms(r.primaryLatencyMs.p50)}</td>
            <td data-testid="shadow-p50">{ms(r.shadowLatencyMs.p50)}</td>
          </tr>
          <tr>
            <th scope="row" className="py-1 text-left font-medium">
              p99
            </th>
            <td data-testid="primary-p99">{ms(r.primaryLatencyMs.p99)}</td>
            <td data-testid="shadow-p99">{ms(r.shadowLatencyMs.p99)}</td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}

function DifferingCalls({ calls, shadowSet }: { calls: Report["calls"]; shadowSet: boolean }) {
  if (calls.length === 0)
    return (
      <EmptyState title="No differing or failed calls" data-testid="shadow-calls-empty">
        {shadowSet
          ? "Every mirrored call so far was answered the same way by the shadow. Calls appear here within seconds."
          : "Set a shadow to compare its answers with your backend's on real calls."}
      </EmptyState>
    );
  return (
    <ol className="space-y-4" data-testid="shadow-calls">
      {calls.map((c) => (
        <li
          key={c.callSid}
          className="min-w-0 rounded-lg border border-slate-200 p-3 dark:border-slate-700"
          data-testid="shadow-call"
          data-outcome={c.outcome}
        >
          <div className="mb-3 flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
            <OutcomeBadge outcome={c.outcome} />
            <Link
              href={`/dashboard/calls?call=${encodeURIComponent(c.callSid)}`}
              className="break-all font-mono text-xs font-semibold text-indigo-600 hover:text-indigo-500 dark:text-indigo-400"
            >
              {c.callSid}
            </Link>
            <LocalTime iso={c.startedAt} />
          </div>
          <AnswerComparison
            aTitle="Your backend"
            bTitle="Shadow"
            a={c.primary}
            b={{ ...c.shadow, error: c.shadow.error ?? null }}
          />
        </li>
      ))}
    </ol>
  );
}
