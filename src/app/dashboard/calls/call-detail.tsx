"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef } from "react";
import { CallStatusBadge, CostBreakdownList, LocalTime } from "@/components/dashboard/calls-table";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { QueryState } from "@/components/ui/query-state";
import { duration, usd } from "@/lib/format";
import { useTRPC } from "@/lib/trpc/client";
import type { TCall, TTimelineEntry } from "@/server/schemas/calls";

const POLL_MS = 3_000;

/** One call and everything that happened to it, oldest first. */
export function CallDetail({ callSid, onClose }: { callSid: string; onClose: () => void }) {
  const trpc = useTRPC();
  const headingRef = useRef<HTMLSpanElement>(null);
  const detail = useQuery({
    ...trpc.calls.get.queryOptions({ callSid }),
    // A live call's timeline keeps growing; an ended one may still have events on their way.
    refetchInterval: (q) =>
      q.state.data?.call.endedAt &&
      q.state.data.call.timeline.every((e) => e.type !== "event" || e.status !== "PENDING")
        ? false
        : POLL_MS,
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: focus moves each time another call opens, which is what callSid says
  useEffect(() => {
    headingRef.current?.focus();
  }, [callSid]);

  const title = (
    <span ref={headingRef} tabIndex={-1} className="break-all focus:outline-none">
      {`Call ${callSid}`}
    </span>
  );
  return (
    <Panel
      title={title}
      data-testid="call-detail"
      actions={
        <Button variant="secondary" size="sm" onClick={onClose}>
          Close
        </Button>
      }
    >
      <div id="call-detail">
        <QueryState query={detail} loadingLabel="Loading call…">
          {({ call }) => <CallBody call={call} />}
        </QueryState>
      </div>
    </Panel>
  );
}

function CallBody({ call: c }: { call: TCall & { timeline: TTimelineEntry[] } }) {
  return (
    <div className="space-y-5" data-status={c.status}>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="text-slate-500 dark:text-slate-400">Status</dt>
        <dd>
          <CallStatusBadge status={c.status} />
        </dd>
        {c.error ? (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Why</dt>
            <dd className="text-red-700 dark:text-red-300" data-testid="call-detail-error">
              <span className="font-mono text-xs font-semibold">{c.error.code}</span>
              <span className="block break-words text-xs">{c.error.message}</span>
            </dd>
          </>
        ) : null}
        <dt className="text-slate-500 dark:text-slate-400">Answer</dt>
        <dd className="font-mono text-xs leading-5" data-testid="call-detail-answer">
          {c.answer ?? "—"}
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">From → To</dt>
        <dd className="font-mono text-xs leading-5">{`${c.from} → ${c.to} (${c.direction})`}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Started</dt>
        <dd>
          <LocalTime iso={c.startedAt} />
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">Ended</dt>
        <dd>
          <LocalTime iso={c.endedAt} />
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">Duration</dt>
        <dd>{c.durationSeconds === null ? "—" : duration(c.durationSeconds)}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Cost</dt>
        <dd>
          {c.costBreakdown
            ? `${usd(c.costBreakdown.totalCost, { precise: true })} (${c.costBreakdown.billedMinutes} min)`
            : "—"}
        </dd>
        {c.answeredBy ? (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Answered by</dt>
            <dd>{c.answeredBy}</dd>
          </>
        ) : null}
      </dl>

      {c.costBreakdown ? (
        <section>
          <h3 className="text-sm font-semibold text-slate-900 dark:text-slate-100">Cost</h3>
          <CostBreakdownList callSid={c.callSid} breakdown={c.costBreakdown} />
        </section>
      ) : null}

      <section>
        <h3 className="text-sm font-semibold text-slate-900 dark:text-slate-100">Timeline</h3>
        <ol className="mt-2 space-y-3" data-testid="call-timeline">
          {c.timeline.map((e, i) => (
            <li
              // biome-ignore lint/suspicious/noArrayIndexKey: a timeline only grows at its end, and its entries have no id of their own
              key={i}
              data-testid="timeline-entry"
              data-type={e.type}
              className="rounded-lg border border-slate-200 dark:border-slate-700 p-3 text-sm"
            >
              <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
                <span className="font-medium text-slate-900 dark:text-slate-100">
                  <LocalTime iso={e.at} />
                </span>
                <span className="font-mono text-xs font-semibold text-slate-700 dark:text-slate-300">
                  {headline(e)}
                </span>
              </div>
              <EntryBody entry={e} />
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}

function headline(e: TTimelineEntry): string {
  switch (e.type) {
    case "request":
      return e.kind === "voice"
        ? `Twilio voice request (${e.callStatus})`
        : e.kind === "status"
          ? `Twilio status: ${e.callStatus}`
          : `Twilio call record read: ${e.callStatus}`;
    case "call.started":
      return `call.started → ${e.statusCode === null ? "no answer" : `HTTP ${e.statusCode}`} in ${e.latencyMs} ms`;
    case "twiml":
      return "TwiML returned to Twilio";
    case "event":
      return `${e.eventType} ${e.status.toLowerCase()}`;
    case "duration-clamped":
      return `Duration clamped: ${e.reportedSeconds} s reported, ${e.billedSeconds} s billed`;
    case "usage":
      return `Billed ${e.billedMinutes} min`;
  }
}

function EntryBody({ entry: e }: { entry: TTimelineEntry }) {
  const pre =
    "mt-2 max-h-40 overflow-auto whitespace-pre-wrap break-all rounded-md bg-slate-50 dark:bg-slate-800/60 p-2 font-mono text-xs text-slate-700 dark:text-slate-300";
  switch (e.type) {
    case "request":
      return e.sequenceNumber === null ? null : (
        <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">{`SequenceNumber ${e.sequenceNumber}`}</p>
      );
    case "call.started":
      return (
        <>
          <p className="mt-1 break-all font-mono text-xs text-slate-500 dark:text-slate-400">{e.url}</p>
          <p className="mt-1 text-xs" data-testid="answer-use">{`Answer used: ${e.answerUse ?? "—"}`}</p>
          {e.error ? <p className="mt-1 text-xs text-red-700 dark:text-red-300">{e.error}</p> : null}
          {e.responseExcerpt ? <pre className={pre}>{e.responseExcerpt}</pre> : null}
        </>
      );
    case "twiml":
      return <pre className={pre}>{e.twiml}</pre>;
    case "event":
      return (
        <p className="mt-1 break-all text-xs text-slate-500 dark:text-slate-400">
          {`${e.url} · ${e.attemptCount === 1 ? "1 attempt" : `${e.attemptCount} attempts`} · `}
          <Link
            href="/dashboard/deliveries"
            className="font-semibold text-indigo-600 dark:text-indigo-400 hover:text-indigo-500 dark:hover:text-indigo-300"
          >
            Delivery log
          </Link>
        </p>
      );
    case "duration-clamped":
      return (
        <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">
          No Twilio connection verified this status, so it bills at most the time since the call began plus 60 s.
        </p>
      );
    case "usage":
      return (
        <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">{`${e.costBreakdown.durationSeconds} s at ${usd(e.costBreakdown.perMinuteRate, { precise: true })}/min = ${usd(e.costBreakdown.totalCost, { precise: true })}`}</p>
      );
  }
}
