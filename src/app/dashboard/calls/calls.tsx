"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { CallsTable } from "@/components/dashboard/calls-table";
import { Pager } from "@/components/dashboard/pager";
import { PageHeader, Panel } from "@/components/ui/card";
import { ErrorState, LoadingState } from "@/components/ui/states";
import { messageOf, useTRPC } from "@/lib/trpc/client";

export const CALLS_PAGE_SIZE = 20;

export function Calls() {
  const trpc = useTRPC();
  const [offset, setOffset] = useState(0);
  const usage = useQuery({ ...trpc.usage.list.queryOptions({ limit: CALLS_PAGE_SIZE, offset }), placeholderData: keepPreviousData });
  return (
    <>
      <PageHeader title="Calls" description="Every completed call, newest first, with what it cost. Minutes are rounded up per call." />
      <Panel>
        {usage.isPending ? (
          <LoadingState />
        ) : usage.error ? (
          <ErrorState message={messageOf(usage.error)} onRetry={() => void usage.refetch()} />
        ) : (
          <>
            <CallsTable records={usage.data.records} />
            <Pager total={usage.data.total} limit={usage.data.limit} offset={usage.data.offset} onChange={setOffset} />
          </>
        )}
      </Panel>
    </>
  );
}
