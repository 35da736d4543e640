import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/app/_trpc/rsc";
import { serverCallbackPolicy } from "@/server/webhooks/http/server-callback-policy";
import { ShadowTab } from "./shadow-tab";

export const metadata: Metadata = { title: "Shadow · Routekit" };

export default async function NumberShadowPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await getQueryClient().prefetchQuery(trpc.phoneNumbers.shadowReport.queryOptions({ id }));
  // The browser checks the shadow URL with the API's own rule, so it needs the server's URL policy.
  const { allowPrivate } = serverCallbackPolicy();
  return (
    <HydrateClient>
      <ShadowTab id={id} policy={{ allowPrivate }} />
    </HydrateClient>
  );
}
