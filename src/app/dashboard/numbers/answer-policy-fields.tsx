"use client";

import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import type { UseFormReturn } from "react-hook-form";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { SelectField, TextAreaField, TextField } from "@/components/ui/field";
import type { FieldBinding } from "@/shared/form-field";
import { appErrorOf, messageOf, useTRPC } from "@/client/trpc/client";
import type { CallbackUrlPolicyOptions } from "@/shared/url-policy";
import { urlHint } from "./callback-url-fields";
import type { AnswerPolicyFormValues } from "./number-form-schemas";

type AnswerField = keyof AnswerPolicyFormValues;

/** The labels of the answer policy's fields, which also start their error sentences. */
export const ANSWER_FIELD_NAMES: Record<AnswerField, string> = {
  answerTimeoutMs: "Answer timeout",
  fallbackKind: "Fallback",
  fallbackUrl: "Fallback URL",
  fallbackActions: "Fallback actions",
  fallbackTwiml: "Fallback TwiML",
  lastResortActions: "Last resort actions",
};

/**
 * What decides a call when the call start URL cannot (docs/decisions.md §12): how long it gets,
 * the fallback (a second URL, actions or TwiML) and the last resort.
 */
export function AnswerPolicyFields({
  field,
  form,
  policy,
}: {
  field: (name: AnswerField) => FieldBinding;
  // biome-ignore lint/suspicious/noExplicitAny: any form holding these fields
  form: UseFormReturn<any, any, any>;
  policy: CallbackUrlPolicyOptions;
}) {
  const kind = form.watch("fallbackKind") as AnswerPolicyFormValues["fallbackKind"];
  const { error: _kindError, ...kindBinding } = field("fallbackKind");
  return (
    <fieldset
      className="space-y-4 rounded-md border border-slate-200 dark:border-slate-700 p-4"
      data-testid="answer-policy-fields"
    >
      <legend className="px-1 text-sm font-semibold text-slate-900 dark:text-slate-100">When your backend fails</legend>
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <TextField
          label="Answer timeout (ms, optional)"
          inputMode="numeric"
          autoComplete="off"
          placeholder="server default"
          hint="1000–10000: how long the call start URL gets to answer. Empty: the server's default."
          {...field("answerTimeoutMs")}
        />
        <SelectField label="Fallback" {...kindBinding} data-testid="fallback-kind">
          <option value="none">None: the last resort answers</option>
          <option value="url">A second backend URL</option>
          <option value="actions">Actions kept by Routekit</option>
          <option value="twiml">TwiML kept by Routekit</option>
        </SelectField>
      </div>
      {kind === "url" ? (
        <TextField
          label="Fallback URL"
          type="url"
          autoComplete="off"
          spellCheck={false}
          hint={urlHint(policy, "Receives the same signed call.started, with data.fallback saying why.")}
          {...field("fallbackUrl")}
        />
      ) : null}
      {kind === "actions" ? (
        <TextAreaField
          label="Fallback actions"
          spellCheck={false}
          placeholder='[{"say": "Please hold"}, {"dial": "+14155550123"}]'
          hint="A JSON array of actions: say, play, pause, dial, gather, record, hangup, reject. Answered at once."
          {...field("fallbackActions")}
        />
      ) : null}
      {kind === "twiml" ? (
        <TextAreaField
          label="Fallback TwiML"
          spellCheck={false}
          placeholder="<Response><Say>Please hold</Say></Response>"
          hint="A TwiML <Response> document, at most 16 KiB. Answered at once."
          {...field("fallbackTwiml")}
        />
      ) : null}
      <TextAreaField
        label="Last resort actions (optional)"
        spellCheck={false}
        placeholder='[{"say": "Sorry, we cannot take your call"}, {"hangup": true}]'
        hint="What callers hear when neither your backend nor the fallback could decide. Empty: a short apology, then hang up."
        {...field("lastResortActions")}
      />
    </fieldset>
  );
}

/** "Test the fallback": the TwiML a caller would get from the saved fallback and last resort; nothing is called. */
export function FallbackPreview({ id, onClose }: { id: string; onClose: () => void }) {
  const trpc = useTRPC();
  const headingId = useId();
  const preview = useQuery(trpc.phoneNumbers.fallbackPreview.queryOptions({ id }));
  const steps = preview.data
    ? [preview.data.preview.first, ...(preview.data.preview.thenIfItFails ? [preview.data.preview.thenIfItFails] : [])]
    : [];
  const title: Record<string, string> = {
    "fallback-url": "First, your fallback URL is asked",
    "fallback-actions": "Your fallback actions answer",
    "fallback-twiml": "Your fallback TwiML answers",
    "last-resort": "Your last resort answers",
    apology: "The built-in apology answers",
  };
  return (
    <section
      aria-labelledby={headingId}
      data-testid="fallback-preview"
      className="mt-4 space-y-3 border-t border-slate-100 dark:border-slate-800 pt-4"
    >
      <h3 id={headingId} className="text-sm font-semibold text-slate-900 dark:text-slate-100">
        What a caller gets when your call start URL fails
      </h3>
      {preview.error ? (
        <Alert tone="error" title="The fallback could not be shown">
          {messageOf(preview.error)}
        </Alert>
      ) : null}
      {preview.isPending ? <p className="text-xs text-slate-500">Rendering…</p> : null}
      <ol className="space-y-3">
        {steps.map((step, i) => (
          <li key={step.takenOverBy} data-testid="fallback-step" data-taken-over-by={step.takenOverBy}>
            <p className="text-sm text-slate-800 dark:text-slate-200">
              {i === 1 ? "If it fails too: " : ""}
              {title[step.takenOverBy]}
              {step.url ? (
                <>
                  {" "}
                  (<code className="break-all font-mono text-xs">{step.url}</code>)
                </>
              ) : null}
            </p>
            {step.twiml ? (
              <pre className="mt-1 overflow-x-auto rounded bg-slate-50 p-2 font-mono text-xs text-slate-800 dark:bg-slate-800 dark:text-slate-100">
                {step.twiml}
              </pre>
            ) : null}
          </li>
        ))}
      </ol>
      <Button variant="secondary" size="sm" onClick={onClose}>
        Close
      </Button>
    </section>
  );
}

const API_PATH_TO_FIELD: Record<string, AnswerField> = {
  answerTimeoutMs: "answerTimeoutMs",
  fallback: "fallbackKind",
  "fallback.url": "fallbackUrl",
  "fallback.actions": "fallbackActions",
  "fallback.twiml": "fallbackTwiml",
  lastResort: "lastResortActions",
  "lastResort.actions": "lastResortActions",
};

/** The API's field paths of the answer policy (`fallback.actions`, …) as the form's fields, so its messages show under them. */
export function withFormPaths(err: unknown): unknown {
  const details = appErrorOf(err)?.details;
  for (const d of details ?? []) {
    const field = API_PATH_TO_FIELD[d.path];
    if (field) d.path = field;
  }
  return err;
}
