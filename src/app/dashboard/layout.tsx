import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { DashboardShell } from "@/components/dashboard/shell";
import { TwoFactorRequiredBanner } from "@/components/dashboard/two-factor-required-banner";
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
      // docs/decisions.md §18: in an account that requires two-factor, a member without it may act only on
      // themselves (403 elsewhere), so the shell still renders, pointing them to Security.
      caller.account
        .get()
        .then((r) => r.account)
        .catch((err: unknown) => {
          if (toErrorResponse(err).status === 403) return null;
          throw err;
        }),
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
        <DashboardShell
          email={me.user?.email ?? account?.email ?? settings.email}
          status={account?.status ?? "TWO_FACTOR_REQUIRED"}
          me={me}
        >
          {account ? null : <TwoFactorRequiredBanner />}
          <UnverifiedBanner initial={settings} />
          {children}
        </DashboardShell>
      </HydrateClient>
    </Providers>
  );
}
