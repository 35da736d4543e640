import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/app/_trpc/rsc";
import { billing } from "@/server/services/billing/billing-strategy";
import { roleAllows } from "@/shared/roles";
import { Billing } from "./billing";

export const metadata: Metadata = { title: "Billing · Routekit" };

export default async function BillingPage() {
  const qc = getQueryClient();
  // The layout asks the same (one answer per request): only a role with billing gets the subscription.
  const { role } = await qc.fetchQuery(trpc.auth.me.queryOptions());
  await Promise.all([
    roleAllows(role, "billing") ? qc.prefetchQuery(trpc.billing.subscription.queryOptions()) : null,
    qc.prefetchQuery(trpc.usage.current.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <Billing note={billing().dashboardNote} />
    </HydrateClient>
  );
}
