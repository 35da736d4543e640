import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/app/_trpc/rsc";
import { serverCallbackPolicy } from "@/server/webhooks/http/server-callback-policy";
import { Twilio } from "./twilio";

export const metadata: Metadata = { title: "Twilio · Routekit" };

export default async function TwilioPage() {
  const qc = getQueryClient();
  await Promise.all([
    qc.prefetchQuery(trpc.account.get.queryOptions()),
    qc.prefetchQuery(trpc.phoneNumbers.list.queryOptions()),
  ]);
  // The callback URL fields validate with the API's own schema, so the browser needs the server's URL policy.
  const { allowPrivate } = serverCallbackPolicy();
  return (
    <HydrateClient>
      <Twilio policy={{ allowPrivate }} />
    </HydrateClient>
  );
}
