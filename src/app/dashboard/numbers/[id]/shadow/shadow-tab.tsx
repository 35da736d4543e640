"use client";

import { useQuery } from "@tanstack/react-query";
import { Panel } from "@/components/ui/card";
import { QueryState } from "@/components/ui/query-state";
import { useTRPC } from "@/client/trpc/client";
import type { CallbackUrlPolicyOptions } from "@/shared/url-policy";
import { ShadowReport } from "./shadow-report";
import { ShadowSettings } from "./shadow-settings";

/** docs/decisions.md §23: the number's shadow backend, set and cleared here, and how its answers compared. */
export function ShadowTab({ id, policy }: { id: string; policy: CallbackUrlPolicyOptions }) {
  const trpc = useTRPC();
  const number = useQuery(trpc.phoneNumbers.get.queryOptions({ id }));
  return (
    <div className="space-y-6">
      <Panel title="Shadow backend">
        <QueryState query={number} loadingLabel="Loading the number…">
          {({ phoneNumber }) => (
            // A new form when the saved shadow changes, so its boxes start from what is saved.
            <ShadowSettings key={JSON.stringify(phoneNumber.shadow)} number={phoneNumber} policy={policy} />
          )}
        </QueryState>
      </Panel>
      <ShadowReport id={id} />
    </div>
  );
}
