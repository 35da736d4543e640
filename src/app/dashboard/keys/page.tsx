import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/app/_trpc/rsc";
import { ApiKeys } from "./api-keys";

export const metadata: Metadata = { title: "API keys · Routekit" };

export default async function ApiKeysPage() {
  const qc = getQueryClient();
  await qc.prefetchQuery(trpc.apiKeys.list.queryOptions());
  return (
    <HydrateClient>
      <ApiKeys />
    </HydrateClient>
  );
}
