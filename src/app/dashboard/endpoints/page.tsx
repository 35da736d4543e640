import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/app/_trpc/rsc";
import { serverCallbackPolicy } from "@/server/webhooks/http/server-callback-policy";
import { Endpoints } from "./endpoints";

export const metadata: Metadata = { title: "Webhook endpoints · Routekit" };

export default async function EndpointsPage() {
  const qc = getQueryClient();
  await qc.prefetchQuery(trpc.webhookEndpoints.list.queryOptions());
  // The browser validates with the API's own schema, so it needs the server's URL policy.
  const { allowPrivate } = serverCallbackPolicy();
  return (
    <HydrateClient>
      <Endpoints policy={{ allowPrivate }} />
    </HydrateClient>
  );
}
