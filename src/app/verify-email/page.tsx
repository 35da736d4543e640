import type { Metadata } from "next";
import { ConfirmLinkPage } from "./confirm-link-page";

export const metadata: Metadata = { title: "Confirm your email · Routekit", referrer: "no-referrer" };

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export default async function VerifyEmailPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  return (
    <ConfirmLinkPage
      kind="verify"
      token={one(params.token) ?? ""}
      title="Confirm your email address"
      explanation="Confirm that this address belongs to your Routekit account."
      action="Confirm my address"
      error={one(params.error)?.slice(0, 300) ?? null}
      done={one(params.done) === "1" ? "Your email address is confirmed. Thank you." : null}
    />
  );
}
