"use client";

import { signOut } from "next-auth/react";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { useTRPC } from "@/client/trpc/client";
import { useConfirmedMutation } from "@/client/use-confirmed-mutation";

/**
 * POST /api/auth/logout from the dashboard: every browser and login token of the signed-in person ends,
 * in every account they belong to, this one too. It cannot be undone, so it asks first; the log-in page then says what it did.
 * (The menu's Log out ends this browser's session only.)
 */
export function SignOutEverywhere() {
  const trpc = useTRPC();
  const everywhere = useConfirmedMutation(trpc.auth.logout.mutationOptions(), {
    onSuccess: () => signOut({ callbackUrl: "/login?notice=signed-out-everywhere" }),
  });
  return (
    <Panel title="Sessions" data-testid="settings-sessions">
      <p className="text-sm text-slate-600">
        Signs you out of every browser and ends every login token of yours, in every account you belong to, this one
        included. API keys keep working; revoke them on the API keys page. To sign out of this browser only, use Log out
        in the menu.
      </p>
      <div className="mt-4">
        <Button variant="secondary" onClick={() => everywhere.ask()}>
          Sign out everywhere
        </Button>
      </div>
      <ConfirmDialog {...everywhere.dialog} title="Sign out everywhere?" confirmLabel="Sign out everywhere">
        Every browser you are signed in on, and every login token issued to you by POST /api/auth/login, stops working
        now, in every account. You will log in again here. API keys keep working.
      </ConfirmDialog>
    </Panel>
  );
}
