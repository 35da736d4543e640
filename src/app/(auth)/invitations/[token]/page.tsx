import type { Metadata } from "next";
import { serverCaller } from "@/app/_trpc/rsc";
import { InvitationForm } from "./invitation-form";

// The token is in the path: no Referer may carry it to another site.
export const metadata: Metadata = { title: "Join an account · Routekit", referrer: "no-referrer" };
export const dynamic = "force-dynamic";

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * The mailed invitation link (docs/decisions.md §18). Opening it changes nothing (mail scanners open links): it
 * shows whose account and which role, and a form that signs the invited address in, or creates its sign-in, and
 * then joins.
 */
export default async function InvitationPage({
  params,
  searchParams,
}: {
  params: Promise<{ token: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { token } = await params;
  const query = await searchParams;
  const preview = await (await serverCaller()).members.invitationPreview({ token: token.slice(0, 200) });
  return <InvitationForm token={token} preview={preview} error={one(query.error)?.slice(0, 300) ?? null} />;
}
