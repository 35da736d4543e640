"use client";

import { Fragment, useState } from "react";
import { Table, Td } from "@/components/ui/table";
import { EmptyState } from "@/components/ui/states";
import { ButtonLink } from "@/components/ui/button";
import { Badge } from "@/components/ui/badge";
import { dateTime, duration, usd } from "@/lib/format";

type UsageRecord = {
  id: string;
  callSid: string;
  direction: "inbound" | "outbound";
  callerNumber: string;
  calledNumber: string;
  durationSeconds: number;
  billedMinutes: number;
  costBreakdown: { durationSeconds: number; billedMinutes: number; perMinuteRate: number; usageCost: number; totalCost: number; currency: string };
  createdAt: string;
};

/** Usage records with each call's cost breakdown one click away. */
export function CallsTable({ records, compact = false }: { records: UsageRecord[]; compact?: boolean }) {
  const [open, setOpen] = useState<string | null>(null);
  if (!records.length) {
    return (
      <EmptyState title="No calls yet" data-testid="calls-empty" action={<ButtonLink href="/dashboard/setup">Open the setup guide</ButtonLink>}>
        Point a Twilio number at your engine URL, or place a simulated call, and it shows up here when it ends.
      </EmptyState>
    );
  }
  return (
    <Table head={["When", "Direction", "From", "To", "Duration", "Billed", "Cost", ""]} data-testid="calls-table">
      {records.map((r) => (
        <Fragment key={r.id}>
          <tr data-testid="call-row" data-call-sid={r.callSid}>
            <Td>{dateTime(r.createdAt)}</Td>
            <Td>
              <Badge tone={r.direction === "inbound" ? "indigo" : "slate"}>{r.direction}</Badge>
            </Td>
            <Td className="font-mono text-xs">{r.callerNumber}</Td>
            <Td className="font-mono text-xs">{r.calledNumber}</Td>
            <Td>{duration(r.durationSeconds)}</Td>
            <Td>{`${r.billedMinutes} min`}</Td>
            <Td>{usd(r.costBreakdown.totalCost, { precise: true })}</Td>
            <Td>
              {compact ? null : (
                <button
                  type="button"
                  className="text-xs font-semibold text-indigo-600 hover:text-indigo-500"
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
              <Td colSpan={8} className="bg-slate-50">
                {/* One cell per label and value, so the pairs stay together at every width. */}
                <dl className="grid grid-cols-2 gap-x-6 gap-y-2 py-1 text-xs sm:grid-cols-3" data-testid="cost-breakdown">
                  {[
                    { label: "Call SID", value: r.callSid, className: "break-all font-mono" },
                    { label: "Duration", value: `${r.costBreakdown.durationSeconds} s` },
                    { label: "Billed minutes", value: `${r.costBreakdown.billedMinutes} (rounded up)` },
                    { label: "Rate", value: `${usd(r.costBreakdown.perMinuteRate, { precise: true })} per minute` },
                    { label: "Usage cost", value: usd(r.costBreakdown.usageCost, { precise: true }) },
                    { label: "Total", value: `${usd(r.costBreakdown.totalCost, { precise: true })} ${r.costBreakdown.currency.toUpperCase()}`, className: "font-semibold" },
                  ].map((item) => (
                    <div key={item.label} className="whitespace-normal">
                      <dt className="text-slate-500">{item.label}</dt>
                      <dd className={item.className}>{item.value}</dd>
                    </div>
                  ))}
                </dl>
              </Td>
            </tr>
          ) : null}
        </Fragment>
      ))}
    </Table>
  );
}
