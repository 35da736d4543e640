import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/app/_trpc/rsc";
import { billing } from "@/server/services/billing/billing-strategy";
import { Billing } from "./billing";

export const metadata: Metadata = { title: "Billing · Routekit" };

export default async function BillingPage() {
  const qc = getQueryClient();
  await Promise.all([
    qc.prefetchQuery(trpc.billing.subscription.queryOptions()),
    qc.prefetchQuery(trpc.usage.current.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <Billing note={billing().dashboardNote} />
    </HydrateClient>
  );
}
