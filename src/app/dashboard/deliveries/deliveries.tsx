"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { StatusBadge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { PageHeader, Panel } from "@/components/ui/card";
import { SelectField, TextField } from "@/components/ui/field";
import { QueryState } from "@/components/ui/query-state";
import { EmptyState } from "@/components/ui/states";
import { Table, Td, clickableRow } from "@/components/ui/table";
import { LocalTime } from "@/components/ui/local-time";
import { useTRPC } from "@/client/trpc/client";
import { useUrlState, type UrlChange } from "@/client/use-url-state";
import { DeliveryDetail } from "./delivery-detail";
import { EndpointBackoffNotice } from "./endpoint-backoff";
import {
  DELIVERY_STATUSES,
  EVENT_TYPE_NAMES,
  POLL_MS,
  PAGE_SIZE,
  attemptOutcome,
  deliveryListInput,
  deliveryViewOf,
  destinationOf,
  dueSoon,
  isDeliveryStatus,
} from "./delivery-status";
import { ReplayFailed } from "./replay-failed";
import { SigningSecret } from "./signing-secret";
import { statusLabel } from "@/shared/format";

export function Deliveries() {
  const { params, set } = useUrlState();
  const { selected } = deliveryViewOf(params);
  return (
    <>
      <PageHeader
        title="Deliveries"
        description="Every event we sent to your callback URLs and webhook endpoints, with each attempt. Failed attempts are retried with backoff for at least 24 hours; you can redeliver any event."
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
  const view = deliveryViewOf(params);
  const { status, offset, selected, endpointId } = view;
  const input = deliveryListInput(view);
  const filtered = Boolean(
    status || view.eventType || view.phoneNumberId || view.destination || view.since || view.until,
  );
  const setOffset = (o: number) => set({ page: o > 0 ? String(o / PAGE_SIZE + 1) : null });
  const onSelect = (id: string) => set({ delivery: id });
  const list = useQuery({
    ...trpc.webhookDeliveries.list.queryOptions(input),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.deliveries.some(dueSoon) ? POLL_MS : false),
  });

  // A new filter starts again at the first page, with no delivery open.
  const filterBy = (change: UrlChange) => set({ ...change, page: null, delivery: null });
  const filters = <DeliveryFilters view={view} filtered={filtered} onChange={filterBy} />;

  const body = (
    <QueryState
      query={list}
      loadingLabel="Loading deliveries…"
      empty={(data) =>
        data.total === 0 ? (
          <EmptyState title={filtered ? "No deliveries match" : "No deliveries yet"} data-testid="deliveries-empty">
            {filtered
              ? "Change or clear the filters to see the rest."
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
            {endpointId ? (
              <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="deliveries-endpoint-filter">
                Only the deliveries to one webhook endpoint.{" "}
                <button
                  type="button"
                  className="font-medium text-indigo-700 underline dark:text-indigo-300"
                  onClick={() => set({ endpoint: null, page: null, delivery: null })}
                >
                  Show every destination
                </button>
              </p>
            ) : null}
            <Table
              head={["Status", "Event and call", "Destination", "Last attempt", ""]}
              data-testid="deliveries-table"
            >
              {deliveries.map((d) => {
                const row = clickableRow(() => onSelect(d.id));
                return (
                  <tr
                    key={d.id}
                    data-testid="delivery-row"
                    data-event-type={d.eventType}
                    data-status={d.status}
                    onClick={row.onClick}
                    className={selected === d.id ? "bg-indigo-50 dark:bg-indigo-950/60" : row.className}
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
                        className="block max-w-[9rem] truncate text-slate-500 dark:text-slate-400"
                        title={d.callSid ?? undefined}
                      >
                        {d.callSid ?? "—"}
                      </span>
                    </Td>
                    <Td label="Destination" className="text-xs">
                      <span
                        className="block font-medium text-slate-700 dark:text-slate-300"
                        data-testid="delivery-destination"
                        data-endpoint-id={d.endpointId ?? undefined}
                      >
                        {destinationOf(d)}
                      </span>
                      <span className="block max-w-[10rem] truncate font-mono" title={d.url}>
                        {d.url}
                      </span>
                    </Td>
                    <Td label="Last attempt">
                      <span className="block max-w-[10rem] whitespace-normal">
                        <LocalTime iso={d.lastAttemptAt} data-testid="delivery-last-attempt-at" />
                      </span>
                      {d.lastAttempt ? (
                        <span
                          className="block max-w-[10rem] truncate text-xs text-slate-500 dark:text-slate-400"
                          title={attemptOutcome(d.lastAttempt)}
                        >
                          {attemptOutcome(d.lastAttempt)}
                        </span>
                      ) : null}
                    </Td>
                    <Td className="text-right">
                      <Button variant="secondary" size="sm" aria-haspopup="dialog" onClick={() => onSelect(d.id)}>
                        Details
                      </Button>
                    </Td>
                  </tr>
                );
              })}
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
    <Panel title="Delivery log">
      <div className="space-y-4">
        {filters}
        {body}
      </div>
    </Panel>
  );
}

/** Status, event type, number, destination and days: each kept in the URL. */
function DeliveryFilters({
  view,
  filtered,
  onChange,
}: {
  view: ReturnType<typeof deliveryViewOf>;
  filtered: boolean;
  onChange: (change: UrlChange) => void;
}) {
  const trpc = useTRPC();
  const numbers = useQuery(trpc.phoneNumbers.list.queryOptions());
  return (
    <div data-testid="delivery-filters">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
        <SelectField
          label="Status"
          value={view.status ?? ""}
          onChange={(e) => onChange({ status: isDeliveryStatus(e.target.value) ? e.target.value : null })}
          data-testid="delivery-status-filter"
        >
          <option value="">All</option>
          {DELIVERY_STATUSES.map((s) => (
            <option key={s} value={s}>
              {statusLabel(s)}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Event type"
          value={view.eventType ?? ""}
          onChange={(e) => onChange({ type: e.target.value || null })}
          data-testid="delivery-type-filter"
        >
          <option value="">All types</option>
          {EVENT_TYPE_NAMES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Number"
          value={view.phoneNumberId ?? ""}
          onChange={(e) => onChange({ number: e.target.value || null })}
          data-testid="delivery-number-filter"
        >
          <option value="">All numbers</option>
          {numbers.data?.phoneNumbers.map((n) => (
            <option key={n.id} value={n.id}>
              {n.phoneNumber}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Destination"
          value={view.destination ?? ""}
          onChange={(e) => onChange({ to: e.target.value || null })}
          data-testid="delivery-destination-filter"
        >
          <option value="">Every destination</option>
          <option value="endpoint">Webhook endpoints</option>
          <option value="number-url">Number URLs</option>
        </SelectField>
        <TextField
          label="From"
          type="date"
          value={view.since ?? ""}
          onChange={(e) => onChange({ since: e.target.value || null })}
          data-testid="delivery-since-filter"
        />
        <TextField
          label="To"
          type="date"
          value={view.until ?? ""}
          onChange={(e) => onChange({ until: e.target.value || null })}
          data-testid="delivery-until-filter"
        />
      </div>
      {filtered ? (
        <div className="mt-3">
          <Button
            variant="secondary"
            size="sm"
            onClick={() => onChange({ status: null, type: null, number: null, to: null, since: null, until: null })}
          >
            Clear filters
          </Button>
        </div>
      ) : null}
    </div>
  );
}
