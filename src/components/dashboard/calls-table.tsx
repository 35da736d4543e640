"use client";

import { Fragment, useState } from "react";
import { Table, Td } from "@/components/ui/table";
import { EmptyState } from "@/components/ui/states";
import { ButtonLink } from "@/components/ui/button";
import { Badge } from "@/components/ui/badge";
import { dateTime, duration, usd } from "@/lib/format";
import type { TCall } from "@/server/schemas/calls";
import type { CallDirection } from "@/server/schemas/enums";
import type { CallStatus } from "@/server/schemas/enums";

type UsageRecord = {
  id: string;
  callSid: string;
  direction: CallDirection;
  callerNumber: string;
  calledNumber: string;
  durationSeconds: number;
  billedMinutes: number;
  costBreakdown: {
    durationSeconds: number;
    billedMinutes: number;
    perMinuteRate: number;
    usageCost: number;
    totalCost: number;
    currency: string;
  };
  createdAt: string;
};

/** A completed call's cost, one label and value per cell so the pairs stay together at every width. */
export function CostBreakdownList({
  callSid,
  breakdown: b,
}: {
  callSid: string;
  breakdown: UsageRecord["costBreakdown"];
}) {
  return (
    <dl className="grid grid-cols-2 gap-x-6 gap-y-2 py-1 text-xs sm:grid-cols-3" data-testid="cost-breakdown">
      {[
        { label: "Call SID", value: callSid, className: "break-all font-mono" },
        { label: "Duration", value: `${b.durationSeconds} s` },
        { label: "Billed minutes", value: `${b.billedMinutes} (rounded up)` },
        { label: "Rate", value: `${usd(b.perMinuteRate, { precise: true })} per minute` },
        { label: "Usage cost", value: usd(b.usageCost, { precise: true }) },
        {
          label: "Total",
          value: `${usd(b.totalCost, { precise: true })} ${b.currency.toUpperCase()}`,
          className: "font-semibold",
        },
      ].map((item) => (
        <div key={item.label} className="whitespace-normal">
          <dt className="text-slate-500 dark:text-slate-400">{item.label}</dt>
          <dd className={item.className}>{item.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Usage records with each call's cost breakdown one click away (the overview's latest completed calls). */
export function CallsTable({ records, compact = false }: { records: UsageRecord[]; compact?: boolean }) {
  const [open, setOpen] = useState<string | null>(null);
  if (!records.length) {
    return (
      <EmptyState
        title="No calls yet"
        data-testid="calls-empty"
        action={<ButtonLink href="/dashboard/setup">Open the setup guide</ButtonLink>}
      >
        Point a Twilio number at your engine URL, or place a simulated call, and it shows up here when it ends.
      </EmptyState>
    );
  }
  return (
    <Table head={["When", "Direction", "From", "To", "Duration", "Billed", "Cost", ""]} data-testid="calls-table">
      {records.map((r) => (
        <Fragment key={r.id}>
          <tr data-testid="call-row" data-call-sid={r.callSid}>
            <Td label="When">{dateTime(r.createdAt)}</Td>
            <Td label="Direction">
              <Badge tone={r.direction === "inbound" ? "indigo" : "slate"}>{r.direction}</Badge>
            </Td>
            <Td label="From" className="font-mono text-xs">
              {r.callerNumber}
            </Td>
            <Td label="To" className="font-mono text-xs">
              {r.calledNumber}
            </Td>
            <Td label="Duration">{duration(r.durationSeconds)}</Td>
            <Td label="Billed">{`${r.billedMinutes} min`}</Td>
            <Td label="Cost">{usd(r.costBreakdown.totalCost, { precise: true })}</Td>
            <Td>
              {compact ? null : (
                <button
                  type="button"
                  className="text-xs font-semibold text-indigo-600 dark:text-indigo-400 hover:text-indigo-500 dark:hover:text-indigo-300"
                  aria-expanded={open === r.id}
                  onClick={() => setOpen(open === r.id ? null : r.id)}
                >
                  {open === r.id ? "Hide breakdown" : "Breakdown"}
                </button>
              )}
            </Td>
          </tr>
          {open === r.id ? (
            <tr>
              <Td colSpan={8} className="bg-slate-50 dark:bg-slate-800/60">
                <CostBreakdownList callSid={r.callSid} breakdown={r.costBreakdown} />
              </Td>
            </tr>
          ) : null}
        </Fragment>
      ))}
    </Table>
  );
}

const CALL_STATUS_TONE: Record<CallStatus, "green" | "amber" | "red" | "slate" | "indigo"> = {
  completed: "green",
  "in-progress": "indigo",
  ringing: "indigo",
  queued: "slate",
  initiated: "slate",
  busy: "amber",
  "no-answer": "amber",
  canceled: "slate",
  failed: "red",
  rejected: "red",
};

export function CallStatusBadge({ status }: { status: string }) {
  return (
    <Badge tone={CALL_STATUS_TONE[status as CallStatus] ?? "slate"} data-testid="call-status">
      {status}
    </Badge>
  );
}

/** Seconds in the viewer's time zone; the UTC time on hover. */
export function LocalTime({ iso }: { iso: string | null }) {
  if (!iso) return <span>—</span>;
  const d = new Date(iso);
  const local = new Intl.DateTimeFormat(undefined, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).format(d);
  return (
    <time dateTime={iso} title={`${iso.replace("T", " ").replace(/\.\d+Z$/, "")} UTC`}>
      {local}
    </time>
  );
}

/**
 * The call log: every call whatever its end. Status first, then time and
 * number, so a phone shows what matters before it scrolls sideways.
 */
export function CallLogTable({
  calls,
  selected,
  onSelect,
}: {
  calls: TCall[];
  selected: string | null;
  onSelect: (callSid: string) => void;
}) {
  return (
    <Table
      head={["Status", "Started", "From → To", "Answer", "Duration", "Billed", "Cost", ""]}
      data-testid="calls-table"
    >
      {calls.map((c) => (
        <tr
          key={c.callSid}
          data-testid="call-row"
          data-call-sid={c.callSid}
          data-status={c.status}
          className={selected === c.callSid ? "bg-indigo-50 dark:bg-indigo-950/60" : undefined}
        >
          <Td label="Status">
            <CallStatusBadge status={c.status} />
            {c.error ? (
              <span
                className="mt-1 block max-w-[12rem] truncate font-mono text-xs text-red-700 dark:text-red-300"
                title={c.error.message}
                data-testid="call-error"
              >
                {c.error.code}
              </span>
            ) : null}
          </Td>
          <Td label="Started">
            <LocalTime iso={c.startedAt} />
          </Td>
          <Td label="From → To" className="font-mono text-xs">
            <span className="block">{c.from}</span>
            <span className="block text-slate-500 dark:text-slate-400">{`→ ${c.to}`}</span>
          </Td>
          <Td label="Answer" className="font-mono text-xs">
            {c.answer ?? "—"}
          </Td>
          <Td label="Duration">{c.durationSeconds === null ? "—" : duration(c.durationSeconds)}</Td>
          <Td label="Billed">{c.billedMinutes === null ? "—" : `${c.billedMinutes} min`}</Td>
          <Td label="Cost">{c.costBreakdown ? usd(c.costBreakdown.totalCost, { precise: true }) : "—"}</Td>
          <Td className="text-right">
            <button
              type="button"
              className="text-xs font-semibold text-indigo-600 dark:text-indigo-400 hover:text-indigo-500 dark:hover:text-indigo-300"
              aria-expanded={selected === c.callSid}
              aria-controls="call-detail"
              onClick={() => onSelect(c.callSid)}
            >
              Timeline
            </button>
          </Td>
        </tr>
      ))}
    </Table>
  );
}
