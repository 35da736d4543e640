"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { PageHeader, Panel } from "@/components/ui/card";
import { SelectField, TextField } from "@/components/ui/field";
import { LocalTime } from "@/components/ui/local-time";
import { QueryState } from "@/components/ui/query-state";
import { EmptyState } from "@/components/ui/states";
import { Table, Td } from "@/components/ui/table";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import { type UrlChange, useUrlState } from "@/client/use-url-state";
import {
  AUDIT_ACTION_DESCRIPTIONS,
  AUDIT_ACTIONS,
  AUDIT_TARGET_TYPES,
  type AuditAction,
  type AuditTargetType,
  type TAuditLogEntry,
  ZListAuditLogInput,
} from "@/shared/schemas/audit-log";

const PAGE_SIZE = 50;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The view lives in the URL, so a refresh, Back and a shared link show the same entries. */
type Filters = {
  action?: AuditAction;
  actor?: string;
  targetType?: AuditTargetType;
  targetId?: string;
  since?: string;
  until?: string;
};

function filtersOf(params: URLSearchParams): Filters {
  const f: Filters = {};
  const action = params.get("action");
  if (action && (AUDIT_ACTIONS as readonly string[]).includes(action)) f.action = action as AuditAction;
  const targetType = params.get("targetType");
  if (targetType && (AUDIT_TARGET_TYPES as readonly string[]).includes(targetType))
    f.targetType = targetType as AuditTargetType;
  const actor = params.get("actor")?.trim();
  if (actor) f.actor = actor.slice(0, 64);
  const targetId = params.get("targetId")?.trim();
  if (targetId) f.targetId = targetId.slice(0, 64);
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
    ...(f.action && { action: f.action }),
    ...(f.actor && { actor: f.actor }),
    ...(f.targetType && { targetType: f.targetType }),
    ...(f.targetId && { targetId: f.targetId }),
    ...(f.since && { since: startOf(f.since) }),
    ...(f.until && { until: startOf(f.until, 1) }),
  };
}

// The API's own rules for the two free-text filters; an empty box removes its filter.
const blankIsNone = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const ZTextFilters = z.object({
  actor: z.preprocess(blankIsNone, ZListAuditLogInput.shape.actor),
  targetId: z.preprocess(blankIsNone, ZListAuditLogInput.shape.targetId),
});

/** docs/decisions.md §18: every change to the account, who made it, from where and when; kept 13 months. */
export function AuditLog() {
  const { params, set } = useUrlState();
  const filters = filtersOf(new URLSearchParams(params.toString()));
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change to this account: members and roles, API keys, numbers, endpoints, limits, the Twilio connection, secrets rotated, billing links, and live calls hung up, redirected or transferred. Who made it (a member, or an API key by its prefix), from which address, and when. Kept 13 months; also at GET /api/audit-log."
      />
      <div className="space-y-6">
        <AuditFilters filters={filters} onChange={(change) => set(change)} />
        <AuditEntries filters={filters} onFilter={(change) => set(change)} />
      </div>
    </>
  );
}

function AuditFilters({ filters, onChange }: { filters: Filters; onChange: (change: UrlChange) => void }) {
  const { field, onSubmit } = useApiForm({
    schema: ZTextFilters,
    names: { actor: "Who", targetId: "Target id" },
    defaultValues: { actor: filters.actor ?? "", targetId: filters.targetId ?? "" },
  });
  const apply = onSubmit(({ actor, targetId }) => onChange({ actor: actor ?? null, targetId: targetId ?? null }));
  const anySet = Object.keys(filters).length > 0;
  return (
    <Panel title="Find changes" data-testid="audit-filters">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <SelectField
          label="What"
          value={filters.action ?? ""}
          onChange={(e) => onChange({ action: e.target.value || null })}
          data-testid="audit-filter-action"
        >
          <option value="">Every change</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {a}: {AUDIT_ACTION_DESCRIPTIONS[a]}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Target"
          value={filters.targetType ?? ""}
          onChange={(e) => onChange({ targetType: e.target.value || null })}
          data-testid="audit-filter-target-type"
        >
          <option value="">Anything</option>
          {AUDIT_TARGET_TYPES.map((t) => (
            <option key={t} value={t}>
              {t.replaceAll("_", " ")}
            </option>
          ))}
        </SelectField>
        <TextField
          label="From"
          type="date"
          value={filters.since ?? ""}
          onChange={(e) => onChange({ since: e.target.value || null })}
          data-testid="audit-filter-since"
        />
        <TextField
          label="To"
          type="date"
          value={filters.until ?? ""}
          onChange={(e) => onChange({ until: e.target.value || null })}
          data-testid="audit-filter-until"
        />
      </div>
      {/* biome-ignore lint/a11y/useSemanticElements: <search> is too new for every screen reader we support; the role says the same */}
      <form onSubmit={apply} role="search" noValidate className="mt-3 grid grid-cols-1 gap-3 sm:grid-cols-3">
        <TextField
          label="Who"
          placeholder="A member's user id, or a key prefix (rtk_…)"
          data-testid="audit-filter-actor"
          {...field("actor")}
        />
        <TextField
          label="Target id"
          placeholder="An id or call SID"
          data-testid="audit-filter-target-id"
          {...field("targetId")}
        />
        <div className="flex items-start gap-2 sm:mt-6">
          <Button type="submit" variant="secondary" data-testid="audit-filter-apply">
            Search
          </Button>
          {anySet ? (
            <Button
              type="button"
              variant="secondary"
              onClick={() =>
                onChange({ action: null, actor: null, targetType: null, targetId: null, since: null, until: null })
              }
              data-testid="audit-filter-clear"
            >
              Clear filters
            </Button>
          ) : null}
        </div>
      </form>
    </Panel>
  );
}

function who(e: TAuditLogEntry): string {
  if (e.actor.type === "member") return e.actor.email ?? e.actor.userId ?? "a member";
  if (e.actor.type === "api_key") return `API key ${e.actor.keyPrefix ?? ""}…`;
  return "Routekit";
}

function AuditEntries({ filters, onFilter }: { filters: Filters; onFilter: (change: UrlChange) => void }) {
  const trpc = useTRPC();
  const list = useInfiniteQuery({
    ...trpc.auditLog.list.infiniteQueryOptions(
      { limit: PAGE_SIZE, ...queryOf(filters) },
      { getNextPageParam: (p) => p.nextCursor ?? undefined },
    ),
    placeholderData: keepPreviousData,
  });
  return (
    <Panel>
      <QueryState
        query={list}
        loadingLabel="Loading the audit log…"
        empty={(data) =>
          data.pages[0]?.entries.length === 0 ? (
            <EmptyState title="No changes" data-testid="audit-empty">
              {Object.keys(filters).length > 0
                ? "No change matches these filters."
                : "Changes to this account will show here as they are made."}
            </EmptyState>
          ) : null
        }
      >
        {(data) => (
          <>
            <Table head={["When", "What", "Who", "Target", "Address", "Details"]} data-testid="audit-table">
              {data.pages
                .flatMap((p) => p.entries)
                .map((e) => (
                  <tr key={e.id} data-testid="audit-row">
                    <Td label="When">
                      <LocalTime iso={e.createdAt} />
                    </Td>
                    <Td label="What">
                      <code className="font-semibold" title={AUDIT_ACTION_DESCRIPTIONS[e.action]}>
                        {e.action}
                      </code>
                    </Td>
                    <Td label="Who">
                      <button
                        type="button"
                        className="break-all text-left underline decoration-dotted"
                        onClick={() => onFilter({ actor: e.actor.userId ?? e.actor.keyPrefix })}
                        disabled={e.actor.type === "system"}
                      >
                        {who(e)}
                      </button>
                    </Td>
                    <Td label="Target">
                      <span className="break-all">
                        {e.target.type.replaceAll("_", " ")}
                        {e.target.id ? (
                          <>
                            {" "}
                            <code>{e.target.id}</code>
                          </>
                        ) : null}
                      </span>
                    </Td>
                    <Td label="Address">{e.ip ?? "—"}</Td>
                    <Td label="Details" className="whitespace-normal">
                      {e.details ? (
                        <code className="block max-w-md break-all text-xs">{JSON.stringify(e.details)}</code>
                      ) : (
                        "—"
                      )}
                    </Td>
                  </tr>
                ))}
            </Table>
            {list.hasNextPage ? (
              <div className="mt-4">
                <Button variant="secondary" onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage}>
                  Older changes
                </Button>
              </div>
            ) : null}
          </>
        )}
      </QueryState>
    </Panel>
  );
}
