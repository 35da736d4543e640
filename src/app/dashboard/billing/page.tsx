import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/lib/trpc/server";
import { env } from "@/server/env";
import { Billing } from "./billing";

export const metadata: Metadata = { title: "Billing · Routekit" };

export default async function BillingPage() {
  const qc = getQueryClient();
  await Promise.all([qc.prefetchQuery(trpc.billing.subscription.queryOptions()), qc.prefetchQuery(trpc.usage.current.queryOptions())]);
  return (
    <HydrateClient>
      <Billing mode={env().billingMode} />
    </HydrateClient>
  );
}
