"use client";

import { CodeLabel } from "@/components/ui/code-label";
import { Table, Td, clickableRow } from "@/components/ui/table";
import { Badge } from "@/components/ui/badge";
import { duration, statusLabel, usd } from "@/shared/format";
import type { TCall } from "@/shared/schemas/calls";
import type { CallStatus } from "@/shared/schemas/enums";

/** A completed call's cost, as on its usage record. */
type CostBreakdown = {
  durationSeconds: number;
  billedMinutes: number;
  perMinuteRate: number;
  usageCost: number;
  totalCost: number;
  currency: string;
};

/** A completed call's cost, one label and value per cell so the pairs stay together at every width. */
export function CostBreakdownList({ callSid, breakdown: b }: { callSid: string; breakdown: CostBreakdown }) {
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
  unknown: "slate",
};

export function CallStatusBadge({ status }: { status: string }) {
  return (
    <Badge tone={CALL_STATUS_TONE[status as CallStatus] ?? "slate"} title={status} data-testid="call-status">
      {statusLabel(status)}
    </Badge>
  );
}

export { LocalTime } from "@/components/ui/local-time";
import { LocalTime } from "@/components/ui/local-time";

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
      {calls.map((c) => {
        const row = clickableRow(() => onSelect(c.callSid));
        return (
          <tr
            key={c.callSid}
            data-testid="call-row"
            data-call-sid={c.callSid}
            data-status={c.status}
            onClick={row.onClick}
            className={selected === c.callSid ? "bg-indigo-50 dark:bg-indigo-950/60" : row.className}
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
            <Td label="Answer" className="text-xs">
              <CodeLabel code={c.answer} />
            </Td>
            <Td label="Duration">{c.durationSeconds === null ? "—" : duration(c.durationSeconds)}</Td>
            <Td label="Billed">{c.billedMinutes === null ? "—" : `${c.billedMinutes} min`}</Td>
            <Td label="Cost">{c.costBreakdown ? usd(c.costBreakdown.totalCost, { precise: true }) : "—"}</Td>
            <Td className="text-right">
              <button
                type="button"
                className="text-xs font-semibold text-indigo-600 dark:text-indigo-400 hover:text-indigo-500 dark:hover:text-indigo-300"
                aria-haspopup="dialog"
                onClick={() => onSelect(c.callSid)}
              >
                Timeline
              </button>
            </Td>
          </tr>
        );
      })}
    </Table>
  );
}
