"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/ui/alert";
import { Button, ButtonLink } from "@/components/ui/button";
import { PageHeader, Panel, Stat } from "@/components/ui/card";
import { QueryState } from "@/components/ui/query-state";
import { ErrorState } from "@/components/ui/states";
import { StatusBadge } from "@/components/ui/badge";
import { MinutesChart } from "@/components/dashboard/minutes-chart";
import { CallsTable } from "@/components/dashboard/calls-table";
import { messageOf, useTRPC } from "@/lib/trpc/client";
import { useShowError } from "@/lib/show-error";
import { monthName, usd } from "@/lib/format";

/** What the account must do about its standing, if anything; `subscriptionStatus` is Stripe's (null in local billing mode). */
export function StatusCallToAction({
  status,
  subscriptionStatus = null,
}: {
  status: string;
  subscriptionStatus?: string | null;
}) {
  const trpc = useTRPC();
  const showError = useShowError();
  const checkout = useMutation(
    trpc.billing.checkout.mutationOptions({
      onSuccess: ({ url }) => window.location.assign(url),
      onError: (err) => showError(err),
    }),
  );
  if (status === "INACTIVE") {
    return (
      <Alert
        tone="warning"
        title="Your account is not active yet"
        data-testid="status-cta"
        actions={
          <Button onClick={() => checkout.mutate()} loading={checkout.isPending || checkout.isSuccess}>
            Go to checkout
          </Button>
        }
      >
        Complete checkout to register numbers and take calls. Until then inbound calls are rejected.
      </Alert>
    );
  }
  if (status === "SUSPENDED") {
    return (
      <Alert
        tone="error"
        title="Your account is suspended"
        data-testid="status-cta"
        actions={<ButtonLink href="/dashboard/billing">Go to billing</ButtonLink>}
      >
        Calls to your numbers are rejected and numbers cannot be changed. Update your payment or resume your plan in
        billing.
      </Alert>
    );
  }
  if (subscriptionStatus === "past_due") {
    // docs/decisions.md §4: Stripe is retrying a failed charge; service continues until the subscription becomes unpaid.
    return (
      <Alert
        tone="warning"
        title="Your last payment failed"
        data-testid="payment-warning"
        actions={<ButtonLink href="/dashboard/billing">Go to billing</ButtonLink>}
      >
        Your account stays active while the payment provider retries the charge. Update your payment method in the
        billing portal before the retries run out, or the account is suspended.
      </Alert>
    );
  }
  return null;
}

export function Overview() {
  const trpc = useTRPC();
  const account = useQuery(trpc.account.get.queryOptions());
  const subscription = useQuery(trpc.billing.subscription.queryOptions());
  const current = useQuery(trpc.usage.current.queryOptions());
  const daily = useQuery(trpc.usage.daily.queryOptions({ days: 30 }));
  const latest = useQuery(trpc.usage.list.queryOptions({ limit: 5, offset: 0 }));

  return (
    <>
      <PageHeader
        title="Overview"
        description="Your account, this month's calls and what they cost."
        actions={
          account.data ? <StatusBadge status={account.data.account.status} data-testid="overview-status" /> : null
        }
      />
      <div className="space-y-6">
        {account.data ? (
          <StatusCallToAction
            status={account.data.account.status}
            subscriptionStatus={subscription.data?.subscriptionStatus ?? null}
          />
        ) : null}
        {account.error ? (
          <ErrorState message={messageOf(account.error)} onRetry={() => void account.refetch()} />
        ) : null}

        <QueryState query={current}>
          {(usage) => (
            <dl className="grid grid-cols-1 gap-4 sm:grid-cols-3">
              <Stat
                label={`Calls in ${monthName(usage.currentMonth.period)}`}
                value={usage.currentMonth.calls}
                data-testid="stat-calls"
              />
              <Stat
                label="Billed minutes"
                value={usage.currentMonth.billedMinutes}
                hint="Rounded up per call"
                data-testid="stat-minutes"
              />
              <Stat
                label="Estimated cost"
                value={usd(usage.currentMonth.estimatedCost)}
                hint={`${usd(usage.monthlyBase)} base + ${usd(usage.perMinuteRate, { precise: true })}/min`}
                data-testid="stat-cost"
              />
            </dl>
          )}
        </QueryState>

        <Panel title="Billed minutes per day, last 30 days (UTC)">
          <QueryState query={daily}>{({ days }) => <MinutesChart days={days} />}</QueryState>
        </Panel>

        <Panel
          title="Latest calls"
          actions={
            <ButtonLink href="/dashboard/calls" variant="secondary" size="sm">
              All calls
            </ButtonLink>
          }
        >
          <QueryState query={latest}>{({ records }) => <CallsTable records={records} compact />}</QueryState>
        </Panel>
      </div>
    </>
  );
}
