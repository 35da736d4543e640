"use client";

import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { z } from "zod";
import { CallLogTable } from "@/components/dashboard/calls-table";
import { Button } from "@/components/ui/button";
import { PageHeader, Panel } from "@/components/ui/card";
import { SelectField, TextField } from "@/components/ui/field";
import { QueryState } from "@/components/ui/query-state";
import { EmptyState } from "@/components/ui/states";
import { useToast } from "@/client/toast";
import { appErrorOf, messageOf, useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import { CALL_DIRECTIONS, type CallDirection } from "@/shared/schemas/enums";
import { useUrlState, type UrlChange } from "@/client/use-url-state";
import { ZListCallsInput, type TCall } from "@/shared/schemas/calls";
import { useShowError } from "@/client/show-error";
import type { CallbackUrlPolicyOptions } from "@/shared/url-policy";
import { CallDetail } from "./call-detail";
import { LiveCalls } from "./live-calls";
import { callsCsv } from "./calls-csv";
import { CALL_STATUSES, type CallStatus } from "@/shared/schemas/enums";
import { statusLabel } from "@/shared/format";

const CALLS_PAGE_SIZE = 25;
/** New calls show up without a reload. */
const POLL_MS = 4_000;

const STATUSES = CALL_STATUSES;
type Status = CallStatus;

/** The view lives in the URL, so a refresh, Back and a shared link show the same calls. */
type Filters = {
  status?: Status;
  direction?: CallDirection;
  phoneNumberId?: string;
  callSid?: string;
  since?: string;
  until?: string;
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;

// The API's own callSid rule; an empty box searches for nothing (the filter is removed).
const ZSidSearch = z.object({
  sid: z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), ZListCallsInput.shape.callSid),
});

function filtersOf(params: URLSearchParams): Filters {
  const f: Filters = {};
  const status = params.get("status");
  if (status && (STATUSES as readonly string[]).includes(status)) f.status = status as Status;
  const direction = params.get("direction");
  if ((CALL_DIRECTIONS as readonly string[]).includes(direction ?? "")) f.direction = direction as CallDirection;
  const number = params.get("number");
  if (number) f.phoneNumberId = number;
  const sid = params.get("sid")?.trim();
  if (sid) f.callSid = sid;
  const since = params.get("since");
  if (since && DAY.test(since)) f.since = since;
  const until = params.get("until");
  if (until && DAY.test(until)) f.until = until;
  return f;
}

/** Dates are the viewer's days: from the start of `since` to the end of `until`, in their time zone. */
function queryOf(f: Filters) {
  const startOf = (day: string, plusDays = 0) => {
    const d = new Date(`${day}T00:00:00`);
    d.setDate(d.getDate() + plusDays);
    return d.toISOString();
  };
  return {
    ...(f.status && { status: f.status }),
    ...(f.direction && { direction: f.direction }),
    ...(f.phoneNumberId && { phoneNumberId: f.phoneNumberId }),
    ...(f.callSid && { callSid: f.callSid }),
    ...(f.since && { since: startOf(f.since) }),
    ...(f.until && { until: startOf(f.until, 1) }),
  };
}

/** The keyset pages walked so far, oldest-first cursors joined by "." (base64url has none): page N is N-1 cursors in. */
function cursorTrail(params: URLSearchParams): string[] {
  return (params.get("after") ?? "")
    .split(".")
    .filter((c) => /^[A-Za-z0-9_-]{1,200}$/.test(c))
    .slice(0, 100);
}

export function Calls({ policy }: { policy: CallbackUrlPolicyOptions }) {
  const { params, set } = useUrlState();
  const filters = filtersOf(new URLSearchParams(params.toString()));
  const selected = params.get("call");
  const trail = cursorTrail(new URLSearchParams(params.toString()));
  // A new filter starts at the first page; opening a call keeps the page.
  const navigate = (change: UrlChange) =>
    set("call" in change && Object.keys(change).length === 1 ? change : { ...change, after: null });

  return (
    <>
      <PageHeader
        title="Calls"
        description="Every call your numbers took or placed, whatever its end: completed, busy, failed, rejected, or fallen back because your backend's answer could not be used. Open a call for its timeline."
      />
      <div className="space-y-6">
        <LiveCalls onOpen={(sid) => navigate({ call: sid })} />
        <CallFilters filters={filters} onChange={navigate} />
        <CallList
          filters={filters}
          trail={trail}
          onPage={(next) => set({ after: next.length ? next.join(".") : null, call: null })}
          selected={selected}
          onSelect={(sid) => navigate({ call: sid === selected ? null : sid })}
        />
        {selected ? (
          <CallDetail
            key={selected}
            callSid={selected}
            policy={policy}
            onClose={() => set({ call: null }, "replace")}
          />
        ) : null}
      </div>
    </>
  );
}

function CallFilters({ filters, onChange }: { filters: Filters; onChange: (change: UrlChange) => void }) {
  const trpc = useTRPC();
  const numbers = useQuery(trpc.phoneNumbers.list.queryOptions());
  const { form, field, onSubmit } = useApiForm({
    schema: ZSidSearch,
    names: { sid: "Call SID" },
    defaultValues: { sid: filters.callSid ?? "" },
  });
  const search = onSubmit(({ sid }) => onChange({ sid: sid ?? null, call: null }));
  const anySet = Object.keys(filters).length > 0;
  return (
    <Panel title="Find calls" data-testid="call-filters">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
        <SelectField
          label="Status"
          value={filters.status ?? ""}
          onChange={(e) => onChange({ status: e.target.value || null, call: null })}
          data-testid="filter-status"
        >
          <option value="">All</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {statusLabel(s)}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Direction"
          value={filters.direction ?? ""}
          onChange={(e) => onChange({ direction: e.target.value || null, call: null })}
          data-testid="filter-direction"
        >
          <option value="">Both</option>
          {CALL_DIRECTIONS.map((d) => (
            <option key={d} value={d}>
              {statusLabel(d)}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Number"
          value={filters.phoneNumberId ?? ""}
          onChange={(e) => onChange({ number: e.target.value || null, call: null })}
          data-testid="filter-number"
        >
          <option value="">All numbers</option>
          {numbers.data?.phoneNumbers.map((n) => (
            <option key={n.id} value={n.id}>
              {n.phoneNumber}
            </option>
          ))}
        </SelectField>
        <TextField
          label="From"
          type="date"
          value={filters.since ?? ""}
          onChange={(e) => onChange({ since: e.target.value || null, call: null })}
          data-testid="filter-since"
        />
        <TextField
          label="To"
          type="date"
          value={filters.until ?? ""}
          onChange={(e) => onChange({ until: e.target.value || null, call: null })}
          data-testid="filter-until"
        />
        {/* biome-ignore lint/a11y/useSemanticElements: <search> is too new for every screen reader we support; the role says the same */}
        <form onSubmit={search} role="search" noValidate className="flex items-start gap-2">
          <TextField
            label="Call SID"
            placeholder="CA…"
            className="min-w-0 flex-1"
            data-testid="filter-sid"
            {...field("sid")}
          />
          <Button type="submit" variant="secondary" className="mt-6" data-testid="filter-sid-submit">
            Search
          </Button>
        </form>
      </div>
      {anySet ? (
        <div className="mt-3">
          <Button
            variant="secondary"
            size="sm"
            onClick={() => {
              form.reset({ sid: "" });
              onChange({
                status: null,
                direction: null,
                number: null,
                sid: null,
                since: null,
                until: null,
                call: null,
              });
            }}
          >
            Clear filters
          </Button>
        </div>
      ) : null}
    </Panel>
  );
}

function CallList({
  filters,
  trail,
  onPage,
  selected,
  onSelect,
}: {
  filters: Filters;
  trail: string[];
  onPage: (trail: string[]) => void;
  selected: string | null;
  onSelect: (callSid: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const showError = useShowError();
  // Keyset pages: the trail of cursors before this page (in the URL), so "Newer" can step back.
  const cursor = trail.at(-1);
  const page = trail.length + 1;
  const input = { ...queryOf(filters), limit: CALLS_PAGE_SIZE, ...(cursor && { cursor }) };
  const list = useQuery({
    ...trpc.calls.list.queryOptions(input),
    placeholderData: keepPreviousData,
    // The first page follows new calls; older pages stay put.
    refetchInterval: cursor ? false : POLL_MS,
  });
  const [exporting, setExporting] = useState(false);

  const exportCsv = async () => {
    setExporting(true);
    try {
      const all: TCall[] = [];
      let next: string | undefined;
      do {
        const page = await queryClient.fetchQuery(
          trpc.calls.list.queryOptions({ ...queryOf(filters), limit: 100, ...(next && { cursor: next }) }),
        );
        all.push(...page.calls);
        next = page.nextCursor ?? undefined;
      } while (next);
      const blob = new Blob([callsCsv(all)], { type: "text/csv;charset=utf-8" });
      const url = URL.createObjectURL(blob);
      const a = document.createElement("a");
      a.href = url;
      a.download = `routekit-calls-${new Date().toISOString().slice(0, 19).replaceAll(":", "")}.csv`;
      document.body.append(a);
      a.click();
      a.remove();
      URL.revokeObjectURL(url);
      toast.success(`Exported ${all.length} ${all.length === 1 ? "call" : "calls"}`);
    } catch (err) {
      showError(err);
    } finally {
      setExporting(false);
    }
  };

  const filtered = Object.keys(filters).length > 0;
  const body = (
    <QueryState
      query={list}
      loadingLabel="Loading calls…"
      // A page whose cursor the API refuses (an edited or stale link) cannot be retried: offer the first page instead.
      error={(err) =>
        page > 1 && appErrorOf(err)?.code === "VALIDATION_FAILED" ? (
          <EmptyState
            title="This page of calls no longer exists"
            data-testid="calls-bad-page"
            action={
              <Button variant="secondary" onClick={() => onPage([])}>
                First page
              </Button>
            }
          >
            {messageOf(err)}
          </EmptyState>
        ) : null
      }
      empty={(data) =>
        data.calls.length === 0 && page === 1 ? (
          <EmptyState title={filtered ? "No calls match" : "No calls yet"} data-testid="calls-empty">
            {filtered
              ? "Change or clear the filters to see other calls."
              : "Point a Twilio number at your engine URL, or place a simulated call: it shows up here as soon as it rings."}
          </EmptyState>
        ) : null
      }
    >
      {(data) => (
        <div className="space-y-4">
          <CallLogTable calls={data.calls} selected={selected} onSelect={onSelect} />
          <nav aria-label="Pages" className="flex flex-wrap items-center justify-between gap-3">
            <p
              className="text-sm text-slate-600 dark:text-slate-400"
              aria-live="polite"
              data-testid="calls-page"
            >{`Page ${page}`}</p>
            <div className="flex gap-2">
              <Button
                variant="secondary"
                size="sm"
                disabled={page === 1 || list.isPlaceholderData}
                onClick={() => onPage(trail.slice(0, -1))}
              >
                Newer
              </Button>
              <Button
                variant="secondary"
                size="sm"
                disabled={!data.nextCursor || list.isPlaceholderData}
                onClick={() => data.nextCursor && onPage([...trail, data.nextCursor])}
              >
                Older
              </Button>
            </div>
          </nav>
        </div>
      )}
    </QueryState>
  );

  return (
    <Panel
      title="Call log"
      data-testid="call-log"
      actions={
        <Button
          variant="secondary"
          size="sm"
          loading={exporting}
          onClick={() => void exportCsv()}
          data-testid="export-csv"
        >
          Export CSV
        </Button>
      }
    >
      {body}
    </Panel>
  );
}
