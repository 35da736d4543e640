import { Card } from "@/components/ui/card";
import { billingPlan } from "@/server/services/billing/billing-plan";
import { localPortalAccount } from "@/server/services/billing/local-portal";

export const dynamic = "force-dynamic";

/** Local billing mode's portal: the plan, and cancel or resume. */
export default async function LocalPortalPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const account = await localPortalAccount(token);
  if (!account) {
    return (
      <main className="px-4">
        <Card title="Billing portal link not valid">
          <p>This link is invalid or has expired: portal links last an hour. Ask for a new one with POST /api/billing/portal.</p>
        </Card>
      </main>
    );
  }
  const plan = await billingPlan();
  return (
    <main className="px-4">
      <Card title="Routekit billing">
        <p>
          Account {account.email} · status <strong data-testid="account-status">{account.status}</strong>
        </p>
        <p>{`Plan: $${plan.monthlyBase.toFixed(2)} a month, plus $${plan.perMinuteRate} per billed minute (rounded up per call).`}</p>
        <form method="post" action={`/billing/portal/${token}/action`} className="pt-2">
          {account.status === "ACTIVE" && (
            <button name="action" value="cancel" className="rounded-md bg-red-600 px-4 py-2 font-medium text-white hover:bg-red-700 focus:outline-none focus:ring-2 focus:ring-red-400">
              Cancel subscription
            </button>
          )}
          {account.status === "SUSPENDED" && (
            <button name="action" value="resume" className="rounded-md bg-emerald-600 px-4 py-2 font-medium text-white hover:bg-emerald-700 focus:outline-none focus:ring-2 focus:ring-emerald-400">
              Resume subscription
            </button>
          )}
        </form>
        {account.status === "INACTIVE" && <p>Checkout is not complete yet: ask for a checkout link with POST /api/billing/checkout.</p>}
        <p className="text-sm text-slate-500">Local billing mode: no payment provider is configured; cancelling suspends the account, resuming re-activates it.</p>
      </Card>
    </main>
  );
}
