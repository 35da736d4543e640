import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/app/_trpc/rsc";
import { PageHeader } from "@/components/ui/card";
import { TwoFactor } from "./two-factor";
import { TwoFactorPolicy } from "./two-factor-policy";

export const metadata: Metadata = { title: "Security · Routekit" };

export default async function SecurityPage() {
  await getQueryClient().prefetchQuery(trpc.twoFactor.status.queryOptions());
  return (
    <HydrateClient>
      <div className="space-y-6">
        <PageHeader
          title="Security"
          description="Two-factor sign-in: a code from an authenticator app at every log-in, with ten recovery codes for when the phone is not at hand."
        />
        <TwoFactor />
        <TwoFactorPolicy />
      </div>
    </HydrateClient>
  );
}
