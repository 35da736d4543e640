import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/app/_trpc/rsc";
import { Overview } from "./overview";

export const metadata: Metadata = { title: "Overview · Routekit" };

export default async function OverviewPage() {
  const qc = getQueryClient();
  await Promise.all([
    qc.prefetchQuery(trpc.account.get.queryOptions()),
    qc.prefetchQuery(trpc.usage.current.queryOptions()),
    qc.prefetchQuery(trpc.usage.daily.queryOptions({ days: 30 })),
    qc.prefetchQuery(trpc.usage.list.queryOptions({ limit: 5, offset: 0 })),
  ]);
  return (
    <HydrateClient>
      <Overview />
    </HydrateClient>
  );
}
