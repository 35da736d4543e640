"use client";

import { useMutation } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { useTRPC } from "@/lib/trpc/client";

/** The same sign-out as the menu's Log out (POST /api/auth/logout), said plainly: every device, this one too. */
export function SignOutEverywhere() {
  const trpc = useTRPC();
  const logout = useMutation(
    trpc.auth.logout.mutationOptions({ onSettled: () => void signOut({ callbackUrl: "/login" }) }),
  );
  return (
    <Panel title="Sessions" data-testid="settings-sessions">
      <p className="text-sm text-slate-600">
        Signs out every browser and every login token of this account, this one included. API keys keep working; revoke
        them on the API keys page.
      </p>
      <div className="mt-4">
        <Button variant="secondary" loading={logout.isPending} onClick={() => logout.mutate()}>
          Sign out everywhere
        </Button>
      </div>
    </Panel>
  );
}
