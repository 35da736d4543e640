import type { Metadata } from "next";
import { ConfirmLinkPage } from "../confirm-link-page";

export const metadata: Metadata = { title: "Confirm your new email · Routekit", referrer: "no-referrer" };

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export default async function ConfirmNewAddressPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  return (
    <ConfirmLinkPage
      kind="change"
      token={one(params.token) ?? ""}
      title="Confirm your new email address"
      explanation="Make this address your Routekit account's email address. Every session of the account ends; log in again with this address."
      action="Change my address"
      error={one(params.error)?.slice(0, 300) ?? null}
      done={null}
    />
  );
}
