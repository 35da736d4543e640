"use client";

import { useQuery } from "@tanstack/react-query";
import { forbiddenReason, type StandingAction } from "@/shared/account-standing";
import { useTRPC } from "@/client/trpc/client";

/** The reason the signed-in account may not do `action` now (null: it may), from the account query the dashboard already makes. */
export function useForbiddenReason(action: StandingAction): string | null {
  const trpc = useTRPC();
  const account = useQuery(trpc.account.get.queryOptions());
  return forbiddenReason(account.data?.account.status, action);
}
