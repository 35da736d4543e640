"use client";

import { LocalTime } from "@/components/ui/local-time";
import { useQueryClient } from "@tanstack/react-query";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { useToast } from "@/client/toast";
import { useTRPC } from "@/client/trpc/client";
import { useConfirmedMutation } from "@/client/use-confirmed-mutation";
import { useRole } from "@/client/use-role";

type Connection = { accountSid: string; friendlyName: string | null; connectedAt: string };

export function ConnectionSummary({ connection }: { connection: Connection }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const forbidden = useRole().reasonFor("admin", "change the Twilio connection");
  const disconnect = useConfirmedMutation(trpc.twilioConnection.disconnect.mutationOptions(), {
    onSuccess: async () => {
      toast.success("Twilio disconnected");
      await Promise.all([
        // Reset, not invalidate: a refetch that fails (404 now) would otherwise keep showing the old connection.
        queryClient.resetQueries({ queryKey: trpc.twilioConnection.get.queryKey() }),
        queryClient.invalidateQueries({ queryKey: trpc.phoneNumbers.list.queryKey() }),
      ]);
    },
  });

  return (
    <Panel
      title="Connected Twilio account"
      data-testid="twilio-connection"
      actions={
        <Button
          variant="secondary"
          size="sm"
          disabled={forbidden !== null}
          aria-describedby={forbidden ? "twilio-disconnect-forbidden" : undefined}
          onClick={() => disconnect.ask()}
        >
          Disconnect
        </Button>
      }
    >
      <ForbiddenReason reason={forbidden} id="twilio-disconnect-forbidden" />
      <dl className="mt-1 grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="text-slate-500 dark:text-slate-400">Account</dt>
        <dd className="font-medium text-slate-900 dark:text-slate-100" data-testid="twilio-friendly-name">
          {connection.friendlyName ?? "—"} <Badge tone="green">connected</Badge>
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">Account SID</dt>
        <dd
          className="break-all font-mono text-xs leading-5 text-slate-800 dark:text-slate-200"
          data-testid="twilio-account-sid"
        >
          {connection.accountSid}
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">Connected</dt>
        <dd className="text-slate-800 dark:text-slate-200">
          <LocalTime iso={connection.connectedAt} />
        </dd>
      </dl>
      <ConfirmDialog {...disconnect.dialog} title="Disconnect Twilio" confirmLabel="Disconnect">
        Your numbers stay registered and Twilio keeps sending their calls to your engine URL, but Routekit can no longer
        verify Twilio&apos;s signatures or prove the numbers are yours: another account that connects the Twilio account
        owning them could take them over.
      </ConfirmDialog>
    </Panel>
  );
}
