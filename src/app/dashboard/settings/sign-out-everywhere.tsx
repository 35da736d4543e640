"use client";

import { signOut } from "next-auth/react";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { useTRPC } from "@/client/trpc/client";
import { useConfirmedMutation } from "@/client/use-confirmed-mutation";

/**
 * POST /api/auth/logout from the dashboard: every browser and login token of the account ends,
 * this one too. It cannot be undone, so it asks first; the log-in page then says what it did.
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
        Signs out every browser and every login token of this account, this one included. API keys keep working; revoke
        them on the API keys page. To sign out of this browser only, use Log out in the menu.
      </p>
      <div className="mt-4">
        <Button variant="secondary" onClick={() => everywhere.ask()}>
          Sign out everywhere
        </Button>
      </div>
      <ConfirmDialog {...everywhere.dialog} title="Sign out everywhere?" confirmLabel="Sign out everywhere">
        Every browser signed in to this account, and every login token issued by POST /api/auth/login, stops working
        now. You will log in again here. API keys keep working.
      </ConfirmDialog>
    </Panel>
  );
}
