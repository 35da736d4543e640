"use client";

import { useQuery } from "@tanstack/react-query";
import { forbiddenReason, type StandingAction } from "@/shared/account-standing";
import { useTRPC } from "@/client/trpc/client";
import { useRole } from "@/client/use-role";

// Every standing-limited action is a write (docs/decisions.md §18): what a role that may not write reads. The
// number actions share one sentence so a page that disables several says it once.
const DOING: Record<StandingAction, string> = {
  registerNumber: "change numbers",
  changeNumber: "change numbers",
  outboundCall: "place calls",
  simulateCall: "change numbers",
};

/**
 * The reason the signed-in member may not do `action` now (null: they may): their role first (it does not
 * change by paying), then the account's standing, from the queries the dashboard already makes.
 */
export function useForbiddenReason(action: StandingAction): string | null {
  const trpc = useTRPC();
  const account = useQuery(trpc.account.get.queryOptions());
  const { reasonFor } = useRole();
  return reasonFor("write", DOING[action]) ?? forbiddenReason(account.data?.account.status, action);
}
