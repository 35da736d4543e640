"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useMemo, useState } from "react";
import { z } from "zod";
import { AnswerComparison, OutcomeBadge } from "@/components/dashboard/answer-comparison";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { appErrorOf } from "@/client/trpc/app-error";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import { useRole } from "@/client/use-role";
import { type CallbackUrlPolicyOptions, zCallbackUrl } from "@/shared/url-policy";
import { replayRefusal } from "./replay-refusal";

const NAMES = { onCallStartUrl: "URL" } as const;

/**
 * docs/decisions.md §23: sends this call's call.started again, as first sent (marked `data.replay`), to a URL the
 * member gives, and shows that answer beside the original with the same comparison as the shadow report. Nothing
 * reaches Twilio or the bill. The URL is checked in the browser by the API's rule for a call start URL.
 */
export function ReplayCall({ callSid, policy }: { callSid: string; policy: CallbackUrlPolicyOptions }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const headingId = useId();
  const reasonId = useId();
  const [open, setOpen] = useState(false);
  const forbidden = useRole().reasonFor("write", "replay calls");
  const { allowPrivate } = policy;
  const schema = useMemo(() => z.object({ onCallStartUrl: zCallbackUrl(() => ({ allowPrivate })) }), [allowPrivate]);
  const { field, formError, setFormError, fail, onSubmit } = useApiForm({
    schema,
    names: NAMES,
    defaultValues: { onCallStartUrl: "" },
    alert: true,
  });
  const replay = useMutation(
    trpc.calls.replay.mutationOptions({
      // The attempt is in the delivery log and the call's timeline.
      onSuccess: () => void queryClient.invalidateQueries(trpc.webhookDeliveries.pathFilter()),
      onError: (err) => {
        const own = replayRefusal(appErrorOf(err));
        if (own) setFormError(own);
        else fail(err);
      },
    }),
  );
  const submit = onSubmit(({ onCallStartUrl }) => replay.mutate({ callSid, onCallStartUrl }));
  const result = replay.data?.replay;

  return (
    <section aria-labelledby={headingId} data-testid="replay-call">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id={headingId} className="text-sm font-semibold text-slate-900 dark:text-slate-100">
          Replay
        </h3>
        <Button
          variant="secondary"
          size="sm"
          aria-expanded={open}
          disabled={forbidden !== null}
          aria-describedby={forbidden ? reasonId : undefined}
          data-testid="replay-open"
          onClick={() => setOpen(!open)}
        >
          Replay against…
        </Button>
      </div>
      <ForbiddenReason reason={forbidden} id={reasonId} />
      {open ? (
        <form onSubmit={submit} noValidate className="mt-2 space-y-3" data-testid="replay-form">
          <p className="text-xs text-slate-600 dark:text-slate-300">
            Sends this call's call.started again, as it was first sent, to another backend (marked{" "}
            <code className="font-mono">data.replay = true</code>, newly signed) and compares its answer with the
            original. Nothing reaches Twilio or the bill. Ten replays a minute.
          </p>
          {formError ? (
            <Alert tone="error" title="The call was not replayed" data-testid="replay-error">
              {formError}
            </Alert>
          ) : null}
          <TextField
            label={NAMES.onCallStartUrl}
            type="url"
            autoComplete="off"
            spellCheck={false}
            placeholder="https://staging.example.com/calls/start"
            hint={allowPrivate ? "An http or https URL." : "A public HTTPS URL."}
            {...field("onCallStartUrl")}
          />
          <div className="flex justify-end">
            <Button type="submit" size="sm" loading={replay.isPending} data-testid="replay-run">
              Replay
            </Button>
          </div>
        </form>
      ) : null}
      <div aria-live="polite">
        {result ? (
          <div className="mt-3 space-y-2" data-testid="replay-result" data-outcome={result.outcome}>
            <p className="flex flex-wrap items-center gap-2 text-sm">
              <OutcomeBadge outcome={result.outcome} />
              <span>{OUTCOME_SENTENCE[result.outcome]}</span>
            </p>
            <AnswerComparison
              aTitle="Original"
              bTitle="Replayed"
              a={result.original}
              b={{ ...result.replayed, error: result.replayed.error ?? null }}
            />
          </div>
        ) : null}
      </div>
    </section>
  );
}

const OUTCOME_SENTENCE = {
  same: "The replayed backend answered as the original did.",
  different: "The replayed backend answered differently: the lines that differ are marked below.",
  failed: "The replayed backend gave no usable answer.",
} as const;
