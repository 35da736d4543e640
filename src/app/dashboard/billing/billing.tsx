"use client";

import { LocalTime } from "@/components/ui/local-time";
import { useMutation, useQuery } from "@tanstack/react-query";
import { StatusCallToAction } from "../overview";
import { Button } from "@/components/ui/button";
import { PageHeader, Panel, Stat } from "@/components/ui/card";
import { StatusBadge } from "@/components/ui/badge";
import { QueryState } from "@/components/ui/query-state";
import { usd } from "@/shared/format";
import { useTRPC } from "@/client/trpc/client";
import { useShowError } from "@/client/show-error";
import { useRole } from "@/client/use-role";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { SpendLimits } from "./spend-limits";

/** `note`: how billing works on this service, from the billing strategy (null: nothing to add). */
export function Billing({ note }: { note: string | null }) {
  const trpc = useTRPC();
  const showError = useShowError();
  const { allows, reasonFor } = useRole();
  // The plan and the portal are billing's (docs/decisions.md §18); the limits below are for every member to read.
  const forbidden = reasonFor("billing", "see or change billing");
  const subscription = useQuery({ ...trpc.billing.subscription.queryOptions(), enabled: allows("billing") });
  const current = useQuery(trpc.usage.current.queryOptions());
  const portal = useMutation(
    trpc.billing.portal.mutationOptions({
      onSuccess: ({ url }) => window.location.assign(url),
      onError: (err) => showError(err),
    }),
  );

  return (
    <>
      <PageHeader
        title="Billing"
        description="A monthly base plus a per-minute rate; minutes are rounded up per call."
        actions={
          forbidden ? null : (
            <Button
              onClick={() => portal.mutate()}
              loading={portal.isPending || portal.isSuccess}
              data-testid="open-portal"
            >
              Open billing portal
            </Button>
          )
        }
      />
      {forbidden ? (
        <Panel title="Plan" data-testid="billing-plan">
          <ForbiddenReason reason={forbidden} id="billing-forbidden" />
        </Panel>
      ) : (
        <QueryState query={subscription}>
          {(billing) => (
            <div className="space-y-6">
              <StatusCallToAction status={billing.status} subscriptionStatus={billing.subscriptionStatus} />
              <Panel title="Plan" data-testid="billing-plan">
                <dl className="grid grid-cols-1 gap-x-8 gap-y-3 text-sm sm:grid-cols-2">
                  <div>
                    <dt className="text-slate-500 dark:text-slate-400">Status</dt>
                    <dd className="mt-1">
                      <StatusBadge status={billing.status} data-testid="billing-status" />
                    </dd>
                  </div>
                  <div>
                    <dt className="text-slate-500 dark:text-slate-400">Payment method</dt>
                    <dd className="mt-1 font-medium" data-testid="payment-method">
                      {billing.hasPaymentMethod ? "On file" : "None on file"}
                    </dd>
                  </div>
                  {billing.subscriptionStatus ? (
                    <div>
                      <dt className="text-slate-500 dark:text-slate-400">Subscription at the payment provider</dt>
                      <dd className="mt-1 font-medium" data-testid="subscription-status">
                        {billing.subscriptionStatus.replace(/_/g, " ")}
                      </dd>
                    </div>
                  ) : null}
                  <div>
                    <dt className="text-slate-500 dark:text-slate-400">Monthly base</dt>
                    <dd className="mt-1 font-medium" data-testid="monthly-base">
                      {usd(billing.monthlyBase)}
                    </dd>
                  </div>
                  <div>
                    <dt className="text-slate-500 dark:text-slate-400">Per minute</dt>
                    <dd className="mt-1 font-medium" data-testid="per-minute-rate">
                      {usd(billing.perMinuteRate, { precise: true })}
                    </dd>
                  </div>
                  <div className="sm:col-span-2">
                    <dt className="text-slate-500 dark:text-slate-400">Current period</dt>
                    <dd className="mt-1 font-medium">
                      <LocalTime iso={billing.currentPeriodStart} /> to <LocalTime iso={billing.currentPeriodEnd} />
                    </dd>
                  </div>
                </dl>
                {note ? <p className="mt-4 text-xs text-slate-500 dark:text-slate-400">{note}</p> : null}
              </Panel>
              <dl className="grid grid-cols-1 gap-4 sm:grid-cols-3">
                <Stat label="Calls this period" value={billing.totalCalls} data-testid="period-calls" />
                <Stat
                  label="Billed minutes this period"
                  value={billing.totalBilledMinutes}
                  data-testid="period-minutes"
                />
                <Stat
                  label="Estimated this month"
                  value={current.data ? usd(current.data.currentMonth.estimatedCost) : "—"}
                  hint="Base plus this calendar month's calls"
                  data-testid="period-estimate"
                />
              </dl>
            </div>
          )}
        </QueryState>
      )}
      <div className="mt-6">
        <SpendLimits />
      </div>
    </>
  );
}
