import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { DashboardShell } from "@/components/dashboard/shell";
import { UnverifiedBanner } from "@/components/dashboard/unverified-banner";
import { Providers } from "@/client/trpc/client";
import { serverCaller } from "@/app/_trpc/rsc";
import { toErrorResponse } from "@/server/errors/to-error-response";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  let account;
  let settings;
  try {
    const caller = await serverCaller();
    // The settings come with the page so the email banner is in the HTML on arrival, not after a fetch.
    [account, settings] = await Promise.all([caller.account.get().then((r) => r.account), caller.settings.get()]);
  } catch (err) {
    // A session whose account is gone, or whose token no longer verifies.
    if (toErrorResponse(err).status === 401) redirect("/login");
    throw err;
  }
  return (
    <Providers>
      <DashboardShell email={account.email} status={account.status}>
        <UnverifiedBanner initial={settings} />
        {children}
      </DashboardShell>
    </Providers>
  );
}
