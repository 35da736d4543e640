import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/lib/trpc/server";
import { CALLS_PAGE_SIZE, Calls } from "./calls";

export const metadata: Metadata = { title: "Calls · Routekit" };

export default async function CallsPage() {
  await getQueryClient().prefetchQuery(trpc.usage.list.queryOptions({ limit: CALLS_PAGE_SIZE, offset: 0 }));
  return (
    <HydrateClient>
      <Calls />
    </HydrateClient>
  );
}
