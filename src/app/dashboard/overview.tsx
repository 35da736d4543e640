"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/ui/alert";
import { Button, ButtonLink } from "@/components/ui/button";
import { PageHeader, Panel, Stat } from "@/components/ui/card";
import { QueryState } from "@/components/ui/query-state";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { StatusBadge } from "@/components/ui/badge";
import { MinutesChart } from "@/components/dashboard/minutes-chart";
import { CallLogTable } from "@/components/dashboard/calls-table";
import { useRouter } from "next/navigation";
import { messageOf, useTRPC } from "@/client/trpc/client";
import { useShowError } from "@/client/show-error";
import { useRole } from "@/client/use-role";
import { monthName, usd } from "@/shared/format";
import { SetupChecklist } from "./setup/setup-checklist";

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
  // Checkout is billing's (docs/decisions.md §18): a member who may not pay is told who can.
  const billingReason = useRole().reasonFor("billing", "complete checkout");
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
          billingReason ? null : (
            <Button onClick={() => checkout.mutate()} loading={checkout.isPending || checkout.isSuccess}>
              Go to checkout
            </Button>
          )
        }
      >
        Complete checkout to register numbers and take calls. Until then inbound calls are rejected.
        {billingReason ? <span className="mt-1 block font-medium">{billingReason}</span> : null}
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

/** docs/decisions.md §17: the month's usage cost at 80 % of the budget or more is said on the overview. */
function BudgetWarning() {
  const trpc = useTRPC();
  const limits = useQuery(trpc.account.limits.queryOptions());
  const data = limits.data;
  const budget = data?.limits.monthlyBudget ?? null;
  if (!data || budget === null) return null;
  const { spent, month } = data.current;
  const percent = budget > 0 ? (spent / budget) * 100 : spent > 0 ? 100 : 0;
  if (percent < 80) return null;
  const over = percent >= 100;
  const capped = data.limits.hardCap;
  return (
    <Alert
      tone={over ? "error" : "warning"}
      title={`${usd(spent)} of your ${usd(budget)} budget for ${monthName(month)} is used (${Math.floor(percent)} %)`}
      data-testid="budget-warning"
      actions={<ButtonLink href="/dashboard/billing">Limits</ButtonLink>}
    >
      {over && capped
        ? "The hard cap is on: new calls are refused until next month or until you raise the budget. Calls already live go on."
        : capped
          ? "The hard cap is on: new calls will be refused once the budget is reached."
          : "The hard cap is off: calls go on past the budget; you are alerted at each threshold."}
    </Alert>
  );
}

export function Overview() {
  const trpc = useTRPC();
  const account = useQuery(trpc.account.get.queryOptions());
  const { allows } = useRole();
  // The subscription is billing's to read: a developer or viewer is not asked a question answered with 403.
  const subscription = useQuery({ ...trpc.billing.subscription.queryOptions(), enabled: allows("billing") });
  const current = useQuery(trpc.usage.current.queryOptions());
  const daily = useQuery(trpc.usage.daily.queryOptions({ days: 30 }));
  // Every call, whatever its end: the usage list holds only the billed ones.
  const latest = useQuery(trpc.calls.list.queryOptions({ limit: 5 }));
  const router = useRouter();

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
        <BudgetWarning />
        <SetupChecklist />
        {account.error ? (
          <ErrorState message={messageOf(account.error)} onRetry={() => void account.refetch()} />
        ) : null}

        <FallbackWarning />

        <QueryState query={current}>
          {(usage) => (
            <dl className="grid grid-cols-1 gap-4 sm:grid-cols-3">
              <Stat
                label={`Billed calls in ${monthName(usage.currentMonth.period)}`}
                value={usage.currentMonth.calls}
                hint="Calls that ended with talk time; every call is in Calls"
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
          <QueryState
            query={latest}
            empty={({ calls }) =>
              calls.length === 0 ? (
                <EmptyState
                  title="No calls yet"
                  data-testid="calls-empty"
                  action={<ButtonLink href="/dashboard/setup">Open the setup guide</ButtonLink>}
                >
                  Point a Twilio number at your engine URL, or place a simulated call: it shows up here as soon as it
                  rings.
                </EmptyState>
              ) : null
            }
          >
            {({ calls }) => (
              <CallLogTable
                calls={calls}
                selected={null}
                onSelect={(sid) => router.push(`/dashboard/calls?call=${encodeURIComponent(sid)}`)}
              />
            )}
          </QueryState>
        </Panel>
      </div>
    </>
  );
}

/** What decided a call when the backend's own answer could not (docs/decisions.md §12). */
const NOT_DECIDED_BY_THE_BACKEND = "fallback-url,fallback-actions,fallback-twiml,fallback";
const SHOWN_AT_MOST = 100;

/** Calls today (the viewer's day) that a fallback, the last resort or the apology answered: the caller may have noticed. */
function FallbackWarning() {
  const trpc = useTRPC();
  const today = new Date();
  today.setHours(0, 0, 0, 0);
  const taken = useQuery({
    ...trpc.calls.list.queryOptions({
      answer: NOT_DECIDED_BY_THE_BACKEND,
      since: today.toISOString(),
      limit: SHOWN_AT_MOST,
    }),
    refetchInterval: 30_000,
  });
  const count = taken.data?.calls.length ?? 0;
  if (!count) return null;
  const more = Boolean(taken.data?.nextCursor);
  const params = new URLSearchParams({ since: localDay(today) });
  return (
    <Alert
      tone="warning"
      title={`Your backend did not answer ${more ? `more than ${SHOWN_AT_MOST}` : count} ${count === 1 && !more ? "call" : "calls"} today`}
      data-testid="fallback-warning"
      actions={<ButtonLink href={`/dashboard/calls?${params}`}>See today's calls</ButtonLink>}
    >
      A fallback, your last resort or the built-in apology answered instead. Each call's timeline says why your
      onCallStartUrl failed.
    </Alert>
  );
}

/** YYYY-MM-DD of the viewer's day, as the Calls page's date filter takes it. */
function localDay(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
