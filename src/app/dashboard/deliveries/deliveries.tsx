"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { StatusBadge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { PageHeader, Panel } from "@/components/ui/card";
import { SelectField } from "@/components/ui/field";
import { QueryState } from "@/components/ui/query-state";
import { EmptyState } from "@/components/ui/states";
import { Table, Td } from "@/components/ui/table";
import { dateTime } from "@/lib/format";
import { useTRPC } from "@/lib/trpc/client";
import { useUrlState } from "@/lib/use-url-state";
import { DeliveryDetail } from "./delivery-detail";
import { EndpointBackoffNotice } from "./endpoint-backoff";
import {
  DELIVERY_STATUSES,
  POLL_MS,
  PAGE_SIZE,
  attemptOutcome,
  deliveryListInput,
  deliveryViewOf,
  dueSoon,
  isDeliveryStatus,
} from "./delivery-status";
import { ReplayFailed } from "./replay-failed";
import { SigningSecret } from "./signing-secret";

export function Deliveries() {
  const { params, set } = useUrlState();
  const { selected } = deliveryViewOf(params);
  return (
    <>
      <PageHeader
        title="Deliveries"
        description="Every event we sent to your callback URLs, with each attempt. Failed attempts are retried with backoff for at least 24 hours; you can redeliver any event."
      />
      <div className="space-y-6">
        <DeliveryLog />
        {selected ? (
          <DeliveryDetail key={selected} id={selected} onClose={() => set({ delivery: null }, "replace")} />
        ) : null}
        <ReplayFailed />
        <SigningSecret />
      </div>
    </>
  );
}

function DeliveryLog() {
  const trpc = useTRPC();
  const { params, set } = useUrlState();
  const { status, offset, selected } = deliveryViewOf(params);
  const input = deliveryListInput({ status, offset });
  const setOffset = (o: number) => set({ page: o > 0 ? String(o / PAGE_SIZE + 1) : null });
  const onSelect = (id: string) => set({ delivery: id });
  const list = useQuery({
    ...trpc.webhookDeliveries.list.queryOptions(input),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.deliveries.some(dueSoon) ? POLL_MS : false),
  });

  const filter = (
    <SelectField
      label="Status"
      value={status ?? ""}
      onChange={(e) =>
        set({ status: isDeliveryStatus(e.target.value) ? e.target.value : null, page: null, delivery: null })
      }
      className="w-full sm:w-48"
      data-testid="delivery-status-filter"
    >
      <option value="">All</option>
      {DELIVERY_STATUSES.map((s) => (
        <option key={s} value={s}>
          {s}
        </option>
      ))}
    </SelectField>
  );

  const body = (
    <QueryState
      query={list}
      loadingLabel="Loading deliveries…"
      empty={(data) =>
        data.total === 0 ? (
          <EmptyState title={status ? `No ${status} deliveries` : "No deliveries yet"} data-testid="deliveries-empty">
            {status
              ? "Choose another status to see the rest."
              : "Events appear here when calls to your numbers end or fail."}
          </EmptyState>
        ) : data.deliveries.length === 0 ? (
          // The log shrank under this page (a filter's rows changed status): back to the start.
          <EmptyState
            title="Nothing on this page"
            action={
              <Button variant="secondary" onClick={() => setOffset(0)}>
                First page
              </Button>
            }
          >
            {`There are ${data.total} deliveries in all.`}
          </EmptyState>
        ) : null
      }
    >
      {(data) => {
        const { deliveries, total } = data;
        const first = data.offset + 1;
        const last = data.offset + deliveries.length;
        return (
          <div className="space-y-4">
            <Table head={["Status", "Event and call", "URL", "Last attempt", ""]} data-testid="deliveries-table">
              {deliveries.map((d) => (
                <tr
                  key={d.id}
                  data-testid="delivery-row"
                  data-event-type={d.eventType}
                  data-status={d.status}
                  className={selected === d.id ? "bg-indigo-50 dark:bg-indigo-950/60" : undefined}
                >
                  <Td label="Status">
                    <StatusBadge status={d.status} />
                    <span className="mt-1 block text-xs text-slate-500 dark:text-slate-400">
                      {d.attemptCount === 1 ? "1 attempt" : `${d.attemptCount} attempts`}
                    </span>
                    <EndpointBackoffNotice until={d.endpointBackoffUntil} className="mt-1 max-w-[14rem]" />
                  </Td>
                  <Td label="Event and call" className="font-mono text-xs">
                    <span className="block">{d.eventType}</span>
                    <span
                      className="block max-w-[11rem] truncate text-slate-500 dark:text-slate-400"
                      title={d.callSid ?? undefined}
                    >
                      {d.callSid ?? "—"}
                    </span>
                  </Td>
                  <Td label="URL" className="font-mono text-xs">
                    <span className="block max-w-[14rem] truncate" title={d.url}>
                      {d.url}
                    </span>
                  </Td>
                  <Td label="Last attempt">
                    <span className="block">{dateTime(d.lastAttemptAt)}</span>
                    {d.lastAttempt ? (
                      <span className="block text-xs text-slate-500 dark:text-slate-400">
                        {attemptOutcome(d.lastAttempt)}
                      </span>
                    ) : null}
                  </Td>
                  <Td className="text-right">
                    <Button
                      variant="secondary"
                      size="sm"
                      aria-expanded={selected === d.id}
                      aria-controls="delivery-detail"
                      onClick={() => onSelect(d.id)}
                    >
                      Details
                    </Button>
                  </Td>
                </tr>
              ))}
            </Table>
            <nav aria-label="Pages" className="flex flex-wrap items-center justify-between gap-3">
              <p
                className="text-sm text-slate-600 dark:text-slate-400"
                data-testid="deliveries-range"
                aria-live="polite"
              >{`Showing ${first}–${last} of ${total}`}</p>
              <div className="flex gap-2">
                <Button
                  variant="secondary"
                  size="sm"
                  disabled={data.offset === 0 || list.isPlaceholderData}
                  onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}
                >
                  Previous
                </Button>
                <Button
                  variant="secondary"
                  size="sm"
                  disabled={last >= total || list.isPlaceholderData}
                  onClick={() => setOffset(offset + PAGE_SIZE)}
                >
                  Next
                </Button>
              </div>
            </nav>
          </div>
        );
      }}
    </QueryState>
  );

  return (
    <Panel title="Delivery log" actions={filter}>
      {body}
    </Panel>
  );
}
