"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useMemo } from "react";
import { z } from "zod";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { LocalTime } from "@/components/ui/local-time";
import { appErrorOf } from "@/client/trpc/app-error";
import { useTRPC } from "@/client/trpc/client";
import { useToast } from "@/client/toast";
import { useApiForm } from "@/client/use-api-form";
import { useForbiddenReason } from "@/client/use-forbidden-reason";
import { type CallbackUrlPolicyOptions, zCallbackUrl } from "@/shared/url-policy";
import { urlHint } from "../../callback-url-fields";
import { percent, readSampleRate, readUntil, type ShadowFormValues, shadowFormValues } from "./shadow-form-values";

type Shadow = { onCallStartUrl: string; sampleRate: number; until: string | null };

const NAMES = { onCallStartUrl: "Shadow URL", samplePercent: "Sample rate", until: "Until" } as const;
/** The API names the shadow's fields under `shadow`; the form's boxes are these. */
const API_PATHS: Record<string, keyof ShadowFormValues> = {
  "shadow.onCallStartUrl": "onCallStartUrl",
  "shadow.sampleRate": "samplePercent",
  "shadow.until": "until",
  shadow: "onCallStartUrl",
};

/**
 * Sets, changes and clears a number's shadow (docs/decisions.md §23): PATCH the number with `shadow`, or `null`.
 * The URL is checked in the browser by the API's own rule for a call start URL (the policy of §6); a member who
 * may not change numbers sees the form disabled, with the reason.
 */
export function ShadowSettings({
  number,
  policy,
}: {
  number: { id: string; phoneNumber: string; shadow: Shadow | null };
  policy: CallbackUrlPolicyOptions;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const forbidden = useForbiddenReason("changeNumber");
  const { allowPrivate } = policy;
  const schema = useMemo(() => {
    const url = zCallbackUrl(() => ({ allowPrivate }));
    return z.object({ onCallStartUrl: url, samplePercent: z.string(), until: z.string() }).transform((v, ctx) => ({
      onCallStartUrl: v.onCallStartUrl,
      sampleRate: readSampleRate(v.samplePercent, ctx),
      until: readUntil(v.until, ctx),
    }));
  }, [allowPrivate]);
  const { field, formError, fail, onSubmit } = useApiForm({
    schema,
    names: NAMES,
    defaultValues: shadowFormValues(number.shadow),
    alert: true,
  });

  const update = useMutation(
    trpc.phoneNumbers.update.mutationOptions({
      onSuccess: async ({ phoneNumber }) => {
        toast.success(phoneNumber.shadow ? "Shadow saved" : "Shadow stopped");
        // The number, the list's badge and the report; the tab makes a new form from the saved shadow.
        await queryClient.invalidateQueries(trpc.phoneNumbers.pathFilter());
      },
      onError: (err) => {
        for (const d of appErrorOf(err)?.details ?? []) d.path = API_PATHS[d.path] ?? d.path;
        fail(err);
      },
    }),
  );

  const submit = onSubmit((shadow) => update.mutate({ id: number.id, shadow }));
  const reasonId = "shadow-forbidden";
  const describedBy = forbidden ? reasonId : undefined;

  return (
    <form onSubmit={submit} noValidate className="space-y-4" data-testid="shadow-form">
      <p className="text-sm text-slate-700 dark:text-slate-300" data-testid="shadow-state">
        {number.shadow ? (
          <>
            Sending {percent(number.shadow.sampleRate)}% of calls to{" "}
            <span className="break-all font-mono text-xs">{number.shadow.onCallStartUrl}</span>{" "}
            {number.shadow.until ? (
              <>
                until <LocalTime iso={number.shadow.until} />
              </>
            ) : (
              "with no end"
            )}
            . Its answers are compared with your backend's and never reach the caller.
          </>
        ) : (
          "No shadow. Set one to send each call's call.started to a second backend too, and compare its answers with your backend's, without the caller hearing it."
        )}
      </p>
      {formError ? (
        <Alert tone="error" title="The shadow was not saved" data-testid="shadow-form-error">
          {formError}
        </Alert>
      ) : null}
      <fieldset disabled={forbidden !== null} className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <TextField
          label={NAMES.onCallStartUrl}
          type="url"
          autoComplete="off"
          spellCheck={false}
          placeholder="https://staging.example.com/calls/start"
          hint={urlHint(policy, "Receives a copy of each call.started, marked data.shadow = true.")}
          className="md:col-span-2"
          {...field("onCallStartUrl")}
        />
        <TextField
          label={`${NAMES.samplePercent} (%)`}
          inputMode="decimal"
          hint="The share of calls to mirror, 0 to 100. Empty: every call."
          {...field("samplePercent")}
        />
        <TextField
          label={NAMES.until}
          type="datetime-local"
          hint="Your local time. Empty: until you stop it."
          {...field("until")}
        />
      </fieldset>
      <div className="flex flex-col items-stretch gap-2 sm:flex-row sm:items-center sm:justify-end">
        <ForbiddenReason reason={forbidden} id={reasonId} />
        {number.shadow ? (
          <Button
            variant="secondary"
            disabled={forbidden !== null || update.isPending}
            aria-describedby={describedBy}
            data-testid="shadow-clear"
            onClick={() => update.mutate({ id: number.id, shadow: null })}
          >
            Stop shadowing
          </Button>
        ) : null}
        <Button
          type="submit"
          loading={update.isPending}
          disabled={forbidden !== null}
          aria-describedby={describedBy}
          data-testid="shadow-save"
        >
          {number.shadow ? "Save shadow" : "Start shadowing"}
        </Button>
      </div>
    </form>
  );
}
