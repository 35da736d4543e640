"use client";

import { useQuery } from "@tanstack/react-query";
import { useCallback } from "react";
import { useTRPC } from "@/client/trpc/client";
import { roleReason } from "@/shared/role-reason";
import { type Need, roleAllows, seesSecrets } from "@/shared/roles";

/**
 * The signed-in member's role in this account (docs/decisions.md §18), from `auth.me`: the dashboard's
 * layout prefetches it, so every page reads the one cached answer. `reasonFor(need, doing)` is the sentence
 * to show beside a control the role cannot use (null when it can, or before the answer arrives: the server
 * refuses anyway, so a control is never hidden on a guess).
 */
export function useRole() {
  const trpc = useTRPC();
  // A role change applies from the member's next request; a minute's cache is enough for what the page shows.
  const me = useQuery({ ...trpc.auth.me.queryOptions(), staleTime: 60_000 });
  const role = me.data?.role;
  const reasonFor = useCallback((need: Need, doing: string) => roleReason(role, need, doing), [role]);
  return {
    role,
    me: me.data,
    reasonFor,
    /** Whether to ask for what only some roles may read (billing): false until the role is known. */
    allows: (need: Need) => role !== undefined && roleAllows(role, need),
    /** False for a viewer (and until the role is known, so a secret never flashes before it). */
    seesSecrets: role !== undefined && seesSecrets(role),
  };
}
