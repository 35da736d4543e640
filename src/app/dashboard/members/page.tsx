import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/app/_trpc/rsc";
import { Members } from "./members";

export const metadata: Metadata = { title: "Members · Routekit" };

export default async function MembersPage() {
  const qc = getQueryClient();
  // Who is asking first: a developer or viewer gets the page's explanation, not a 403 from the list.
  const me = await qc.fetchQuery(trpc.auth.me.queryOptions()).catch(() => null);
  if (me && (me.role === "owner" || me.role === "admin")) {
    await Promise.all([
      qc.prefetchQuery(trpc.members.list.queryOptions()),
      qc.prefetchQuery(trpc.members.invitations.queryOptions()),
    ]);
  }
  return (
    <HydrateClient>
      <Members />
    </HydrateClient>
  );
}
