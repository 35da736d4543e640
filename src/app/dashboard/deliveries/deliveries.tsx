"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { StatusBadge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { PageHeader, Panel } from "@/components/ui/card";
import { SelectField } from "@/components/ui/field";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";
import { Table, Td } from "@/components/ui/table";
import { dateTime } from "@/lib/format";
import { messageOf, useTRPC } from "@/lib/trpc/client";
import { ZDeliveryStatus } from "@/server/schemas/enums";
import { DeliveryDetail } from "./delivery-detail";
import { EndpointBackoffNotice } from "./endpoint-backoff";
import { PAGE_SIZE, POLL_MS, attemptOutcome, dueSoon } from "./delivery-status";
import { ReplayFailed } from "./replay-failed";
import { SigningSecret } from "./signing-secret";

const STATUSES = ZDeliveryStatus.options;
type Status = (typeof STATUSES)[number];

function isStatus(value: string): value is Status {
  return (STATUSES as readonly string[]).includes(value);
}

export function Deliveries() {
  const [selected, setSelected] = useState<string | null>(null);
  return (
    <>
      <PageHeader
        title="Deliveries"
        description="Every event we sent to your callback URLs, with each attempt. Failed attempts are retried with backoff for at least 24 hours; you can redeliver any event."
      />
      <div className="space-y-6">
        <DeliveryLog selected={selected} onSelect={setSelected} />
        {selected ? <DeliveryDetail key={selected} id={selected} onClose={() => setSelected(null)} /> : null}
        <ReplayFailed />
        <SigningSecret />
      </div>
    </>
  );
}

function DeliveryLog({ selected, onSelect }: { selected: string | null; onSelect: (id: string) => void }) {
  const trpc = useTRPC();
  const [status, setStatus] = useState<Status | "">("");
  const [offset, setOffset] = useState(0);
  const input = status ? { limit: PAGE_SIZE, offset, status } : { limit: PAGE_SIZE, offset };
  const list = useQuery({
    ...trpc.webhookDeliveries.list.queryOptions(input),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.deliveries.some(dueSoon) ? POLL_MS : false),
  });

  const filter = (
    <SelectField
      label="Status"
      value={status}
      onChange={(e) => {
        const v = e.target.value;
        setStatus(isStatus(v) ? v : "");
        setOffset(0);
      }}
      className="w-full sm:w-48"
      data-testid="delivery-status-filter"
    >
      <option value="">All</option>
      {STATUSES.map((s) => (
        <option key={s} value={s}>
          {s}
        </option>
      ))}
    </SelectField>
  );

  let body;
  if (list.isPending) {
    body = <LoadingState label="Loading deliveries…" />;
  } else if (list.error) {
    body = <ErrorState message={messageOf(list.error)} onRetry={() => void list.refetch()} />;
  } else if (list.data.total === 0) {
    body = (
      <EmptyState title={status ? `No ${status} deliveries` : "No deliveries yet"} data-testid="deliveries-empty">
        {status ? "Choose another status to see the rest." : "Events appear here when calls to your numbers end or fail."}
      </EmptyState>
    );
  } else if (list.data.deliveries.length === 0) {
    // The log shrank under this page (a filter's rows changed status): back to the start.
    body = (
      <EmptyState title="Nothing on this page" action={<Button variant="secondary" onClick={() => setOffset(0)}>First page</Button>}>
        {`There are ${list.data.total} deliveries in all.`}
      </EmptyState>
    );
  } else {
    const { deliveries, total } = list.data;
    const first = list.data.offset + 1;
    const last = list.data.offset + deliveries.length;
    body = (
      <div className="space-y-4">
        <Table head={["Event and call", "URL", "Status", "Last attempt", ""]} data-testid="deliveries-table">
          {deliveries.map((d) => (
            <tr key={d.id} data-testid="delivery-row" data-event-type={d.eventType} data-status={d.status} className={selected === d.id ? "bg-indigo-50" : undefined}>
              <Td className="font-mono text-xs">
                <span className="block">{d.eventType}</span>
                <span className="block max-w-[11rem] truncate text-slate-500" title={d.callSid ?? undefined}>
                  {d.callSid ?? "—"}
                </span>
              </Td>
              <Td className="font-mono text-xs">
                <span className="block max-w-[14rem] truncate" title={d.url}>
                  {d.url}
                </span>
              </Td>
              <Td>
                <StatusBadge status={d.status} />
                <span className="mt-1 block text-xs text-slate-500">{d.attemptCount === 1 ? "1 attempt" : `${d.attemptCount} attempts`}</span>
                <EndpointBackoffNotice until={d.endpointBackoffUntil} className="mt-1 max-w-[14rem]" />
              </Td>
              <Td>
                <span className="block">{dateTime(d.lastAttemptAt)}</span>
                {d.lastAttempt ? <span className="block text-xs text-slate-500">{attemptOutcome(d.lastAttempt)}</span> : null}
              </Td>
              <Td className="text-right">
                <Button variant="secondary" size="sm" aria-expanded={selected === d.id} aria-controls="delivery-detail" onClick={() => onSelect(d.id)}>
                  Details
                </Button>
              </Td>
            </tr>
          ))}
        </Table>
        <nav aria-label="Pages" className="flex flex-wrap items-center justify-between gap-3">
          <p className="text-sm text-slate-600" data-testid="deliveries-range" aria-live="polite">{`Showing ${first}–${last} of ${total}`}</p>
          <div className="flex gap-2">
            <Button variant="secondary" size="sm" disabled={list.data.offset === 0 || list.isPlaceholderData} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
              Previous
            </Button>
            <Button variant="secondary" size="sm" disabled={last >= total || list.isPlaceholderData} onClick={() => setOffset(offset + PAGE_SIZE)}>
              Next
            </Button>
          </div>
        </nav>
      </div>
    );
  }

  return (
    <Panel title="Delivery log" actions={filter}>
      {body}
    </Panel>
  );
}
