"use client";

import type { ReactNode } from "react";
import { messageOf } from "@/client/trpc/app-error";
import { ErrorState, LoadingState } from "./states";

/** What QueryState reads of a TanStack (tRPC) query result. */
type QueryLike<TData> = {
  isPending: boolean;
  error: unknown;
  data: TData | undefined;
  refetch: () => unknown;
};

/**
 * The one way a page shows a query: its loading state, its error state with a
 * retry (a failed load is never a toast, client/error-display.ts), its empty
 * state, then `children(data)`. An error wins over stale data, as a refetch
 * that failed means the page no longer shows what is true.
 */
export function QueryState<TData>({
  query,
  loadingLabel,
  empty,
  error,
  children,
}: {
  query: QueryLike<TData>;
  loadingLabel?: string;
  /** What to show instead of the data when it has nothing to show; return null (or false) to show the data. */
  empty?: (data: TData) => ReactNode;
  /** A failure the page explains itself; return null to show the usual error state. */
  error?: (error: unknown) => ReactNode;
  children: (data: TData) => ReactNode;
}) {
  if (query.isPending) return <LoadingState label={loadingLabel} />;
  if (query.error) {
    const own = error?.(query.error);
    if (own != null && own !== false) return own;
    return <ErrorState message={messageOf(query.error)} onRetry={() => void query.refetch()} />;
  }
  // Not pending and no error: TanStack guarantees the data is here.
  const data = query.data as TData;
  const nothing = empty?.(data);
  if (nothing != null && nothing !== false) return nothing;
  return children(data);
}
