"use client";

import { CodeLabel } from "@/components/ui/code-label";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { CallStatusBadge, CostBreakdownList, LocalTime } from "@/components/dashboard/calls-table";
import { Drawer } from "@/components/ui/drawer";
import { QueryState } from "@/components/ui/query-state";
import { endReasonOutcome, errorCodeOutcome, type Outcome } from "@/shared/call-outcomes";
import { duration, sinceStart, usd } from "@/shared/format";
import { useTRPC } from "@/client/trpc/client";
import type { TCall, TTimelineEntry } from "@/shared/schemas/calls";
import type { CallbackUrlPolicyOptions } from "@/shared/url-policy";
import { ReplayCall } from "./replay-call";

const POLL_MS = 3_000;

/** One call and everything that happened to it, oldest first. */
export function CallDetail({
  callSid,
  policy,
  onClose,
}: {
  callSid: string;
  policy: CallbackUrlPolicyOptions;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const detail = useQuery({
    ...trpc.calls.get.queryOptions({ callSid }),
    // A live call's timeline keeps growing; an ended one may still have events on their way.
    refetchInterval: (q) =>
      q.state.data?.call.endedAt &&
      q.state.data.call.timeline.every((e) => e.type !== "event" || e.status !== "PENDING")
        ? false
        : POLL_MS,
  });

  return (
    <Drawer title={`Call ${callSid}`} data-testid="call-detail" onClose={onClose}>
      <div id="call-detail">
        <QueryState query={detail} loadingLabel="Loading call…">
          {({ call }) => <CallBody call={call} policy={policy} />}
        </QueryState>
      </div>
    </Drawer>
  );
}

function CallBody({
  call: c,
  policy,
}: {
  call: TCall & { timeline: TTimelineEntry[] };
  policy: CallbackUrlPolicyOptions;
}) {
  return (
    <div className="space-y-5" data-status={c.status}>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="text-slate-500 dark:text-slate-400">Status</dt>
        <dd>
          <CallStatusBadge status={c.status} />
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">Ended because</dt>
        <dd data-testid="call-detail-end-reason" data-end-reason={c.endReason ?? ""}>
          <EndReason call={c} />
        </dd>
        {c.error ? (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Why</dt>
            <dd className="text-red-700 dark:text-red-300" data-testid="call-detail-error">
              <span className="font-mono text-xs font-semibold">{c.error.code}</span>
              <span className="block break-words text-xs">{c.error.message}</span>
              <OutcomeAdvice outcome={errorCodeOutcome(c.error.code)} testId="call-detail-error-advice" />
            </dd>
          </>
        ) : null}
        <dt className="text-slate-500 dark:text-slate-400">Answer</dt>
        <dd className="text-xs leading-5">
          <CodeLabel code={c.answer} data-testid="call-detail-answer" />
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

      {/* docs/decisions.md §23: an inbound call's call.started can be sent again to another backend. */}
      {c.direction === "inbound" ? <ReplayCall callSid={c.callSid} policy={policy} /> : null}

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
                  <LocalTime iso={e.at} ms />
                </span>
                <span className="font-mono text-xs text-slate-500 dark:text-slate-400" data-testid="timeline-offset">
                  {sinceStart(c.startedAt, e.at)}
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

/** The endReason with its label and what to do (src/shared/call-outcomes.ts, the reference's text), and Twilio's carrier codes. */
function EndReason({ call: c }: { call: TCall }) {
  if (!c.endReason) return <span className="text-slate-500 dark:text-slate-400">— (the call is still live)</span>;
  const outcome = endReasonOutcome(c.endReason);
  const carrier = [
    c.sipResponseCode === null ? null : `SIP ${c.sipResponseCode}`,
    c.errorCode === null ? null : `Twilio error ${c.errorCode}`,
  ].filter((x) => x !== null);
  return (
    <>
      <span className="font-semibold">{outcome?.label ?? c.endReason}</span>{" "}
      <span className="font-mono text-xs text-slate-500 dark:text-slate-400">{c.endReason}</span>
      {carrier.length ? (
        <span className="ml-2 font-mono text-xs" data-testid="call-detail-carrier">
          {carrier.join(" · ")}
        </span>
      ) : null}
      <OutcomeAdvice outcome={outcome} testId="call-detail-end-advice" />
    </>
  );
}

function OutcomeAdvice({ outcome, testId }: { outcome: Outcome | null; testId: string }) {
  if (!outcome) return null;
  return (
    <span className="block text-xs text-slate-600 dark:text-slate-300" data-testid={testId}>
      <span className="block break-words">
        <CodeSpans text={outcome.meaning} />
      </span>
      <span className="block break-words">
        <span className="font-semibold">What to do: </span>
        <CodeSpans text={outcome.action} />
      </span>
    </span>
  );
}

/** The table's text is Markdown for the reference: its `code` spans shown as code here too. */
function CodeSpans({ text }: { text: string }) {
  return text.split("`").map((part, i) =>
    i % 2 === 1 ? (
      // biome-ignore lint/suspicious/noArrayIndexKey: the parts of a fixed string, never reordered
      <code key={i} className="font-mono">
        {part}
      </code>
    ) : (
      part
    ),
  );
}

function headline(e: TTimelineEntry): string {
  switch (e.type) {
    case "request":
      return e.kind === "voice"
        ? `Twilio voice request (${e.callStatus})`
        : e.kind === "status"
          ? `Twilio status: ${e.callStatus}`
          : e.kind === "closed"
            ? "Closed: no final status came"
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
    case "command":
      return `${e.command} by ${e.actor}: ${
        e.outcome === "ok"
          ? "done"
          : e.outcome === "refused"
            ? "refused by Twilio"
            : e.outcome === "pending"
              ? "sent"
              : "Twilio unreachable"
      } (Twilio ${e.latencyMs} ms, Routekit ${e.ownMs} ms)`;
    case "transfer":
      return `Transfer to ${e.to}: ${e.dialCallStatus}${e.transferred ? "" : " (caller kept on the line)"}`;
    case "recording":
      return `Recording ${e.recordingSid}: ${e.status}`;
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
          <p className="mt-1 text-xs">
            Answer used: <CodeLabel code={e.answerUse} data-testid="answer-use" />
          </p>
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
    case "command":
      return e.providerError ? (
        <p className="mt-1 text-xs text-red-700 dark:text-red-300">{`Twilio ${e.providerError.code ?? e.providerStatus ?? ""}: ${e.providerError.message}`}</p>
      ) : typeof e.details?.twiml === "string" ? (
        <pre className={pre}>{e.details.twiml}</pre>
      ) : null;
    case "transfer":
      return e.dialCallDurationSeconds === null ? null : (
        <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">{`Talked ${e.dialCallDurationSeconds} s`}</p>
      );
    case "recording":
      return null;
    case "usage":
      return (
        <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">{`${e.costBreakdown.durationSeconds} s at ${usd(e.costBreakdown.perMinuteRate, { precise: true })}/min = ${usd(e.costBreakdown.totalCost, { precise: true })}`}</p>
      );
  }
}
