import type { Metadata } from "next";
import { HydrateClient, getQueryClient, trpc } from "@/app/_trpc/rsc";
import { PageHeader } from "@/components/ui/card";
import { AlertEmails } from "./alert-emails";
import { ChangeEmail } from "./change-email";
import { ChangePassword } from "./change-password";
import { DeleteAccount } from "./delete-account";
import { SignOutEverywhere } from "./sign-out-everywhere";

export const metadata: Metadata = { title: "Settings · Routekit" };

export default async function SettingsPage() {
  await getQueryClient().prefetchQuery(trpc.settings.get.queryOptions());
  return (
    <HydrateClient>
      <div className="space-y-6">
        <PageHeader
          title="Settings"
          description="Your sign-in address and password, alert emails, your sessions, and closing the account."
        />
        <ChangeEmail />
        <ChangePassword />
        <AlertEmails />
        <SignOutEverywhere />
        <DeleteAccount />
      </div>
    </HydrateClient>
  );
}
