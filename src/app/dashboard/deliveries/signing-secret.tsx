"use client";

import { LocalTime } from "@/components/ui/local-time";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { QueryState } from "@/components/ui/query-state";
import { useToast } from "@/client/toast";
import { useTRPC } from "@/client/trpc/client";
import { useConfirmedMutation } from "@/client/use-confirmed-mutation";
import { useRole } from "@/client/use-role";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";

const MASKED = "whsec_••••";

/** The secret that signs every event (Standard Webhooks), hidden until asked for, and its rotation. */
export function SigningSecret() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const account = useQuery(trpc.account.get.queryOptions());
  const [revealed, setRevealed] = useState(false);
  const [overlapUntil, setOverlapUntil] = useState<string | null>(null);

  // Rotating is the account's setting (needs admin): a developer sees the secret but may not replace it.
  const forbidden = useRole().reasonFor("admin", "rotate the signing secret");
  const rotate = useConfirmedMutation(trpc.account.rotateWebhookSecret.mutationOptions(), {
    onSuccess: async ({ webhookSecret, previousSecretExpiresAt }) => {
      setOverlapUntil(previousSecretExpiresAt);
      queryClient.setQueryData(trpc.account.get.queryKey(), (old) =>
        old ? { account: { ...old.account, webhookSecret } } : old,
      );
      toast.success("Signing secret rotated");
      await queryClient.invalidateQueries({ queryKey: trpc.account.get.queryKey() });
    },
  });

  const body = (
    <QueryState query={account} loadingLabel="Loading secret…">
      {({ account: { webhookSecret: secret } }) =>
        secret === undefined ? (
          <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="secret-hidden">
            Your role does not show secrets. Ask an owner, admin or developer for the signing secret.
          </p>
        ) : (
          <div className="space-y-4">
            <p className="text-sm text-slate-600 dark:text-slate-400">
              Every event carries <code className="font-mono text-xs">webhook-id</code>,{" "}
              <code className="font-mono text-xs">webhook-timestamp</code> and{" "}
              <code className="font-mono text-xs">webhook-signature</code> headers made with this secret. Verify them
              with any Standard Webhooks library before trusting an event.
            </p>
            <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
              <code
                data-testid="webhook-secret"
                className="min-w-0 flex-1 break-all rounded-md bg-slate-100 dark:bg-slate-800 px-3 py-2 font-mono text-sm text-slate-900 dark:text-slate-100"
              >
                {revealed ? secret : MASKED}
              </code>
              <div className="flex gap-2">
                <Button variant="secondary" size="sm" onClick={() => setRevealed((r) => !r)}>
                  {revealed ? "Hide" : "Reveal"}
                </Button>
                {revealed ? <CopyButton value={secret} label="Copy secret" /> : null}
              </div>
            </div>
            {overlapUntil ? (
              <Alert tone="success" title="New secret in use" data-testid="rotation-notice">
                Events are now signed with the new secret and, until <LocalTime iso={overlapUntil} />, with the previous
                one too. Update your receivers before then.
              </Alert>
            ) : null}
          </div>
        )
      }
    </QueryState>
  );

  return (
    <Panel
      title="Signing secret"
      data-testid="signing-secret"
      actions={
        <Button
          variant="secondary"
          size="sm"
          disabled={!account.data || forbidden !== null}
          aria-describedby={forbidden ? "rotate-secret-forbidden" : undefined}
          onClick={() => rotate.ask()}
        >
          Rotate secret
        </Button>
      }
    >
      <ForbiddenReason reason={forbidden} id="rotate-secret-forbidden" />
      {body}
      <ConfirmDialog {...rotate.dialog} title="Rotate the signing secret?" confirmLabel="Rotate now" tone="primary">
        A new secret starts signing events at once. The old secret keeps signing for 24 hours as well, so your receivers
        accept events while you switch them to the new one.
      </ConfirmDialog>
    </Panel>
  );
}
