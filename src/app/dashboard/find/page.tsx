import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { PageHeader } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/states";
import { serverCaller } from "@/app/_trpc/rsc";
import type { LookupMatch } from "@/server/services/lookup/lookup";

export const metadata: Metadata = { title: "Find · Routekit" };

/** Where a match is shown: a call's timeline, a delivery's details, a number's calls. */
function hrefOf(match: LookupMatch): string {
  switch (match.kind) {
    case "call":
      return `/dashboard/calls?call=${encodeURIComponent(match.callSid)}`;
    case "delivery":
      return `/dashboard/deliveries?delivery=${encodeURIComponent(match.id)}`;
    case "number":
      return `/dashboard/calls?number=${encodeURIComponent(match.phoneNumberId)}`;
  }
}

/**
 * The header's search box lands here (a plain GET form, so it works before the page's scripts do): a match
 * goes straight to its page; nothing found says so, with what was looked for.
 */
export default async function FindPage({ searchParams }: { searchParams: Promise<{ q?: string | string[] }> }) {
  const raw = (await searchParams).q;
  const q = (Array.isArray(raw) ? raw[0] : raw)?.trim().slice(0, 100) ?? "";
  if (q) {
    const { match } = await (await serverCaller()).lookup.find({ q });
    if (match) redirect(hrefOf(match));
  }
  return (
    <>
      <PageHeader title="Find" />
      <EmptyState title={q ? `Nothing found for “${q}”` : "What are you looking for?"} data-testid="find-nothing">
        Type a call SID (CA…), an event id (evt_…, the webhook-id header your backend received) or a phone number in the
        search box above.
      </EmptyState>
    </>
  );
}
