"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { ButtonLink } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { QueryState } from "@/components/ui/query-state";
import { useTRPC } from "@/client/trpc/client";
import { NumberSummary } from "../number-summary";
import { percent } from "./shadow/shadow-form-values";

/** The number's details tab: what its calls do now; changes are made on the numbers page, as before. */
export function NumberDetails({ id }: { id: string }) {
  const trpc = useTRPC();
  const number = useQuery(trpc.phoneNumbers.get.queryOptions({ id }));
  return (
    <QueryState query={number} loadingLabel="Loading the number…">
      {({ phoneNumber: n }) => (
        <Panel
          title="Callbacks"
          actions={
            <ButtonLink href="/dashboard/numbers" variant="secondary" size="sm">
              Edit on the numbers page
            </ButtonLink>
          }
        >
          <div className="flex flex-wrap gap-2">
            {n.isActive ? null : <Badge tone="amber">inactive</Badge>}
            {n.verified ? <Badge tone="green">verified</Badge> : <Badge>unverified</Badge>}
            {n.twilioConfigured ? <Badge tone="green">configured at Twilio</Badge> : null}
          </div>
          <NumberSummary number={n} />
          <p className="mt-3 text-sm text-slate-700 dark:text-slate-300" data-testid="number-shadow-summary">
            {n.shadow ? `A shadow receives ${percent(n.shadow.sampleRate)}% of its calls. ` : "No shadow backend. "}
            <Link
              href={`/dashboard/numbers/${id}/shadow`}
              className="font-semibold text-indigo-600 hover:text-indigo-500 dark:text-indigo-400 dark:hover:text-indigo-300"
            >
              {n.shadow ? "See how its answers compare" : "Try a new backend on real calls"}
            </Link>
          </p>
        </Panel>
      )}
    </QueryState>
  );
}
