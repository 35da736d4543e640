import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/app/_trpc/rsc";
import { Alerts } from "./alerts";

export const metadata: Metadata = { title: "Alerts · Routekit" };

export default async function AlertsPage() {
  await getQueryClient().prefetchInfiniteQuery(
    trpc.alerts.list.infiniteQueryOptions({ limit: 50 }, { getNextPageParam: (p) => p.nextCursor ?? undefined }),
  );
  return (
    <HydrateClient>
      <Alerts />
    </HydrateClient>
  );
}
