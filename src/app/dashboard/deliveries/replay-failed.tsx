"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { SelectField } from "@/components/ui/field";
import { useTRPC } from "@/client/trpc/client";
import { useRole } from "@/client/use-role";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { useConfirmedMutation } from "@/client/use-confirmed-mutation";

const HOUR = 3600_000;
/** The API reaches back at most 14 days (docs/decisions.md §8). */
const WINDOWS = [
  { label: "the last hour", ms: HOUR },
  { label: "the last 24 hours", ms: 24 * HOUR },
  { label: "the last 3 days", ms: 3 * 24 * HOUR },
  { label: "the last 7 days", ms: 7 * 24 * HOUR },
  { label: "the last 14 days", ms: 14 * 24 * HOUR - 60_000 },
] as const;

/** "Recover everything that failed since": queues every FAILED delivery of a window again, after a confirmation. */
export function ReplayFailed() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [windowIndex, setWindowIndex] = useState(1);
  const [failure, setFailure] = useState<string | null>(null);
  const chosen = WINDOWS[windowIndex]!;
  const forbidden = useRole().reasonFor("write", "replay deliveries");
  const replay = useConfirmedMutation(trpc.webhookDeliveries.replay.mutationOptions(), {
    variablesOf: () => ({ since: new Date(Date.now() - chosen.ms).toISOString(), status: "FAILED" as const }),
    onSuccess: () => void queryClient.invalidateQueries(trpc.webhookDeliveries.pathFilter()),
    inline: setFailure,
  });

  return (
    <Panel title="Replay failed deliveries" data-testid="replay-failed">
      <div className="space-y-3">
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Once your endpoint is fixed, queue every event that gave up again. Each is sent once more, with its original
          id, and retried as usual.
        </p>
        <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
          <SelectField
            label="Failed since"
            value={String(windowIndex)}
            onChange={(e) => setWindowIndex(Number(e.target.value))}
            className="w-full sm:w-56"
            data-testid="replay-since"
          >
            {WINDOWS.map((w, i) => (
              <option key={w.label} value={i}>
                {w.label}
              </option>
            ))}
          </SelectField>
          <Button
            variant="secondary"
            disabled={forbidden !== null}
            aria-describedby={forbidden ? "replay-forbidden" : undefined}
            onClick={() => {
              setFailure(null);
              replay.ask();
            }}
          >
            Replay failed…
          </Button>
        </div>
        <ForbiddenReason reason={forbidden} id="replay-forbidden" />
        <div aria-live="polite">
          {replay.mutation.data ? (
            <Alert tone="success" data-testid="replay-result">
              {replay.mutation.data.queued === 1
                ? "1 delivery queued again."
                : `${replay.mutation.data.queued} deliveries queued again.`}
              {replay.mutation.data.more ? " More match: replay again in a minute to queue the next 1,000." : null}
            </Alert>
          ) : null}
          {failure ? (
            <Alert tone="error" title="Nothing was queued" data-testid="replay-error">
              {failure}
            </Alert>
          ) : null}
        </div>
      </div>
      <ConfirmDialog {...replay.dialog} title="Replay failed deliveries" confirmLabel="Replay" tone="primary">
        {`Every delivery that failed and was created in ${chosen.label} is sent again to its URL.`}
      </ConfirmDialog>
    </Panel>
  );
}
