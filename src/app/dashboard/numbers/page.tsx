import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/app/_trpc/rsc";
import { serverCallbackPolicy } from "@/server/webhooks/http/server-callback-policy";
import { Numbers } from "./numbers";

export const metadata: Metadata = { title: "Numbers · Routekit" };

export default async function NumbersPage() {
  const qc = getQueryClient();
  await Promise.all([
    qc.prefetchQuery(trpc.phoneNumbers.list.queryOptions()),
    qc.prefetchQuery(trpc.account.get.queryOptions()),
  ]);
  // The browser validates with the API's own schemas, so it needs the server's URL policy.
  const { allowPrivate } = serverCallbackPolicy();
  return (
    <HydrateClient>
      <Numbers policy={{ allowPrivate }} />
    </HydrateClient>
  );
}
