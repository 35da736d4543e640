"use client";

import { LocalTime } from "@/components/ui/local-time";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { CopyField } from "@/components/ui/copy-button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { useToast } from "@/client/toast";
import { useTRPC } from "@/client/trpc/client";
import { useConfirmedMutation } from "@/client/use-confirmed-mutation";
import { useRole } from "@/client/use-role";
import type { AppRouter } from "@/server/trpc/root";

type Rotation = inferRouterOutputs<AppRouter>["account"]["rotateEngineUrl"];

/** docs/decisions.md §7: a new engine URL; the old one works 24 more hours; connected numbers follow automatically. */
export function EngineUrlPanel({ connected }: { connected: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const forbidden = useRole().reasonFor("admin", "rotate the engine URL");
  const account = useQuery(trpc.account.get.queryOptions());
  const [result, setResult] = useState<Rotation | null>(null);
  const rotate = useConfirmedMutation(trpc.account.rotateEngineUrl.mutationOptions(), {
    onSuccess: async (r) => {
      setResult(r);
      toast.success("New engine URL issued");
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: trpc.account.get.queryKey() }),
        queryClient.invalidateQueries({ queryKey: trpc.twilioConnection.numbers.queryKey() }),
        queryClient.invalidateQueries({ queryKey: trpc.phoneNumbers.list.queryKey() }),
      ]);
    },
  });

  return (
    <Panel
      title="Engine URL"
      data-testid="engine-url-panel"
      actions={
        <Button
          variant="secondary"
          size="sm"
          disabled={forbidden !== null}
          aria-describedby={forbidden ? "engine-url-forbidden" : undefined}
          onClick={() => rotate.ask()}
        >
          Rotate engine URL
        </Button>
      }
    >
      <div className="space-y-3 text-sm text-slate-700 dark:text-slate-300">
        <ForbiddenReason reason={forbidden} id="engine-url-forbidden" />
        <p>
          {connected
            ? "Twilio sends your numbers' calls here. Numbers you set up through the connection are repointed automatically when you rotate it."
            : "Twilio sends your numbers' calls here. Without a Twilio connection it is a bearer secret, as sensitive as an API key: rotate it if it may have leaked."}
        </p>
        {account.data?.account.engineVoiceUrl !== undefined ? (
          <CopyField
            label="Engine voice URL"
            value={account.data.account.engineVoiceUrl}
            data-testid="twilio-engine-url"
          />
        ) : account.data ? (
          <p data-testid="engine-url-hidden">Your role does not show the engine URL: it is a credential.</p>
        ) : null}
        {result ? (
          <Alert
            tone={result.twilioNumbers.failed.length ? "warning" : "success"}
            title="New engine URL issued"
            data-testid="engine-url-rotated"
          >
            The previous URL keeps working until <LocalTime iso={result.previousExpiresAt} />.{" "}
            {result.twilioNumbers.repointed.length
              ? `Repointed at Twilio: ${result.twilioNumbers.repointed.join(", ")}. `
              : ""}
            {result.twilioNumbers.failed.length
              ? `Not repointed (set them up again below before the old URL expires): ${result.twilioNumbers.failed.map((f) => f.phoneNumber).join(", ")}. `
              : ""}
            Numbers you pointed at Routekit by hand need the new URL in the Twilio console.
          </Alert>
        ) : null}
      </div>
      <ConfirmDialog {...rotate.dialog} title="Rotate the engine URL" confirmLabel="Issue a new URL" tone="primary">
        A new engine URL is issued now and the current one stops working in 24 hours.
        {connected ? " Numbers set up through your Twilio connection are repointed at once;" : ""} any number you
        pointed at Routekit by hand in the Twilio console must get the new URL within those 24 hours.
      </ConfirmDialog>
    </Panel>
  );
}
