import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { DashboardShell } from "@/components/dashboard/shell";
import { UnverifiedBanner } from "@/components/dashboard/unverified-banner";
import { Providers } from "@/client/trpc/client";
import { HydrateClient, getQueryClient, serverCaller, trpc } from "@/app/_trpc/rsc";
import { toErrorResponse } from "@/server/errors/to-error-response";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  let account;
  let settings;
  let me;
  try {
    const caller = await serverCaller();
    // The settings come with the page so the email banner is in the HTML on arrival, not after a fetch.
    // `auth.me` goes into the query cache every page hydrates from: the role decides which controls a page
    // shows (src/client/use-role.ts), so it is there on arrival too, with no flash of a control then its removal.
    [account, settings, me] = await Promise.all([
      caller.account.get().then((r) => r.account),
      caller.settings.get(),
      getQueryClient().fetchQuery(trpc.auth.me.queryOptions()),
    ]);
  } catch (err) {
    // A session whose account is gone, or whose token no longer verifies.
    if (toErrorResponse(err).status === 401) redirect("/login");
    throw err;
  }
  return (
    <Providers>
      <HydrateClient>
        <DashboardShell email={me.user?.email ?? account.email} status={account.status} me={me}>
          <UnverifiedBanner initial={settings} />
          {children}
        </DashboardShell>
      </HydrateClient>
    </Providers>
  );
}
