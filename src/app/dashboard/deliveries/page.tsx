import type { Metadata } from "next";
import { Suspense } from "react";
import { LoadingState } from "@/components/ui/states";
import { HydrateClient, getQueryClient, trpc } from "@/app/_trpc/rsc";
import { Deliveries } from "./deliveries";
import { deliveryListInput, deliveryViewOf } from "./delivery-status";

export const metadata: Metadata = { title: "Deliveries · Routekit" };

type SearchParams = Record<string, string | string[] | undefined>;

export default async function DeliveriesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  // Prefetch the page the URL asks for (?status=FAILED&page=2), the same input the client log builds.
  const sp = await searchParams;
  const view = deliveryViewOf({ get: (name) => (typeof sp[name] === "string" ? sp[name] : null) });
  const qc = getQueryClient();
  await Promise.all([
    // Days are the viewer's (their time zone is the browser's): a dated view is fetched by the browser alone.
    view.since || view.until
      ? null
      : qc.prefetchQuery(trpc.webhookDeliveries.list.queryOptions(deliveryListInput(view))),
    qc.prefetchQuery(trpc.account.get.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <Suspense fallback={<LoadingState label="Loading deliveries…" />}>
        <Deliveries />
      </Suspense>
    </HydrateClient>
  );
}
