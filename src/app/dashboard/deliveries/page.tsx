import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/lib/trpc/server";
import { Deliveries } from "./deliveries";
import { PAGE_SIZE } from "./delivery-status";

export const metadata: Metadata = { title: "Deliveries · Routekit" };

export default async function DeliveriesPage() {
  const qc = getQueryClient();
  await Promise.all([
    qc.prefetchQuery(trpc.webhookDeliveries.list.queryOptions({ limit: PAGE_SIZE, offset: 0 })),
    qc.prefetchQuery(trpc.account.get.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <Deliveries />
    </HydrateClient>
  );
}
