"use client";

import { LocalTime } from "@/components/ui/local-time";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useEffect, useMemo, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button, ButtonLink } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { QueryState } from "@/components/ui/query-state";
import { EmptyState } from "@/components/ui/states";
import { useToast } from "@/client/toast";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import { useForbiddenReason } from "@/client/use-forbidden-reason";
import { useRole } from "@/client/use-role";
import { useConfirmedMutation } from "@/client/use-confirmed-mutation";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import type { CallbackUrlPolicyOptions } from "@/shared/url-policy";
import type { TUpdatePhoneNumberInput } from "@/shared/schemas/phone-numbers";
import type { AppRouter } from "@/server/trpc/root";
import { TextField } from "@/components/ui/field";
import { ZDailyMinuteCap } from "@/shared/schemas/limits";
import { z } from "zod";
import { CallbackUrlFields } from "./callback-url-fields";
import { NUMBER_FIELD_NAMES } from "./number-fields";
import {
  answerPolicyFormFields,
  answerPolicyFormValues,
  editNumberFormSchema,
  type AnswerPolicyFormValues,
  type UrlFormValues,
} from "./number-form-schemas";
import { ANSWER_FIELD_NAMES, AnswerPolicyFields, FallbackPreview, withFormPaths } from "./answer-policy-fields";
import { SendTestEvent } from "./send-test-event";
import { NumberSummary } from "./number-summary";
import { SimulateCall } from "./simulate-call";

type PhoneNumber = inferRouterOutputs<AppRouter>["phoneNumbers"]["list"]["phoneNumbers"][number];

export function NumberList({ policy }: { policy: CallbackUrlPolicyOptions }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const forbidden = useForbiddenReason("changeNumber");
  const simulateForbidden = useForbiddenReason("simulateCall");
  // A test event is a write too (docs/decisions.md §18), whatever the account's standing: the same sentence as
  // `forbidden` when the role is the reason, so it is said once.
  const testForbidden = useRole().reasonFor("write", "change numbers");
  // Said once: beside the change reason when it is the same sentence, on its own otherwise.
  const simulateReasonId = simulateForbidden === forbidden ? "number-change-forbidden" : "number-simulate-forbidden";
  const list = useQuery(trpc.phoneNumbers.list.queryOptions());
  const [editing, setEditing] = useState<string | null>(null);
  const [testing, setTesting] = useState<string | null>(null);
  const [previewing, setPreviewing] = useState<string | null>(null);
  const [simulating, setSimulating] = useState<string | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const del = useConfirmedMutation(trpc.phoneNumbers.delete.mutationOptions(), {
    variablesOf: (n: PhoneNumber) => ({ id: n.id }),
    onSuccess: async (_, n) => {
      if (editing === n.id) setEditing(null);
      toast.success(`Number ${n.phoneNumber} deleted`);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: trpc.phoneNumbers.list.queryKey() }),
        queryClient.invalidateQueries({ queryKey: trpc.account.get.queryKey() }),
      ]);
    },
    inline: setListError,
  });
  const toDelete = del.subject;

  return (
    <QueryState query={list} loadingLabel="Loading numbers…">
      {({ phoneNumbers: numbers }) => (
        <div className="space-y-4">
          {listError ? (
            <Alert tone="error" title="The number was not deleted" data-testid="number-list-error">
              {listError}
            </Alert>
          ) : null}
          {numbers.length > 0 ? <ForbiddenReason reason={forbidden} id="number-change-forbidden" /> : null}
          {numbers.length > 0 && simulateForbidden !== forbidden ? (
            <ForbiddenReason reason={simulateForbidden} id="number-simulate-forbidden" />
          ) : null}
          {numbers.length === 0 ? (
            <EmptyState
              title="No numbers yet"
              data-testid="numbers-empty"
              action={<ButtonLink href="/dashboard/setup">Open the setup guide</ButtonLink>}
            >
              Add the Twilio number your callers dial, then point it at your engine URL. The setup guide walks you
              through both.
            </EmptyState>
          ) : (
            <ul className="space-y-3" data-testid="number-list">
              {numbers.map((n) => (
                <li
                  key={n.id}
                  data-testid="number-row"
                  data-phone-number={n.phoneNumber}
                  className="rounded-lg border border-slate-200 dark:border-slate-700 p-4"
                >
                  <div className="flex flex-wrap items-start justify-between gap-3">
                    <div className="min-w-0">
                      <p className="font-mono text-base font-semibold text-slate-900 dark:text-slate-100">
                        <Link
                          href={`/dashboard/numbers/${n.id}`}
                          className="hover:text-indigo-600 hover:underline dark:hover:text-indigo-400"
                          data-testid="number-page-link"
                        >
                          {n.phoneNumber}
                        </Link>
                      </p>
                      <p className="mt-0.5 text-xs text-slate-500 dark:text-slate-400">
                        Added <LocalTime iso={n.createdAt} />
                      </p>
                    </div>
                    <div className="flex flex-wrap items-center gap-2">
                      {n.isActive ? null : <Badge tone="amber">inactive</Badge>}
                      {n.verified ? (
                        <Badge tone="green" data-testid="number-verified">
                          verified
                        </Badge>
                      ) : (
                        <Badge data-testid="number-unverified">unverified</Badge>
                      )}
                      {n.shadow ? (
                        <Badge tone="indigo" data-testid="number-shadowed">
                          shadow on
                        </Badge>
                      ) : null}
                      {n.twilioConfigured ? (
                        <Badge tone="green" data-testid="number-configured">
                          configured at Twilio
                        </Badge>
                      ) : null}
                      {editing === n.id ? null : (
                        <Button
                          variant="secondary"
                          size="sm"
                          disabled={forbidden !== null}
                          aria-describedby={forbidden ? "number-change-forbidden" : undefined}
                          onClick={() => setEditing(n.id)}
                        >
                          Edit
                        </Button>
                      )}
                      <Button
                        variant="secondary"
                        size="sm"
                        aria-expanded={testing === n.id}
                        disabled={testForbidden !== null}
                        aria-describedby={testForbidden ? "number-change-forbidden" : undefined}
                        onClick={() => setTesting(testing === n.id ? null : n.id)}
                      >
                        Send test event
                      </Button>
                      <Button
                        variant="secondary"
                        size="sm"
                        aria-expanded={simulating === n.id}
                        disabled={simulateForbidden !== null}
                        aria-describedby={simulateForbidden ? simulateReasonId : undefined}
                        data-testid="simulate-call"
                        onClick={() => setSimulating(simulating === n.id ? null : n.id)}
                      >
                        Simulate a call
                      </Button>
                      <ButtonLink
                        href={`/dashboard/numbers/${n.id}/shadow`}
                        variant="secondary"
                        size="sm"
                        data-testid="number-shadow-link"
                      >
                        Shadow
                      </ButtonLink>
                      <Button
                        variant="secondary"
                        size="sm"
                        aria-expanded={previewing === n.id}
                        data-testid="test-fallback"
                        onClick={() => setPreviewing(previewing === n.id ? null : n.id)}
                      >
                        Test the fallback
                      </Button>
                      <Button
                        variant="secondary"
                        size="sm"
                        disabled={forbidden !== null}
                        aria-describedby={forbidden ? "number-change-forbidden" : undefined}
                        onClick={() => {
                          setListError(null);
                          del.ask(n);
                        }}
                      >
                        Delete
                      </Button>
                    </div>
                  </div>
                  {editing === n.id ? (
                    <EditNumberForm number={n} policy={policy} onDone={() => setEditing(null)} />
                  ) : (
                    <NumberSummary number={n} />
                  )}
                  {testing === n.id ? <SendTestEvent number={n} onClose={() => setTesting(null)} /> : null}
                  {simulating === n.id ? <SimulateCall number={n} onClose={() => setSimulating(null)} /> : null}
                  {previewing === n.id ? <FallbackPreview id={n.id} onClose={() => setPreviewing(null)} /> : null}
                </li>
              ))}
            </ul>
          )}
          <ConfirmDialog {...del.dialog} title="Delete number" confirmLabel="Delete number">
            {toDelete
              ? `Calls to ${toDelete.phoneNumber} will no longer reach your callbacks, and anyone can register the number again. Its call history stays.`
              : null}
          </ConfirmDialog>
        </div>
      )}
    </QueryState>
  );
}

/** PATCH semantics: only changed URLs are sent; an emptied error URL is sent as null, which clears it. */
function EditNumberForm({
  number,
  policy,
  onDone,
}: {
  number: PhoneNumber;
  policy: CallbackUrlPolicyOptions;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const { allowPrivate } = policy;
  const schema = useMemo(() => {
    const answer = answerPolicyFormFields({ allowPrivate });
    return editNumberFormSchema({ allowPrivate })
      .extend({ ...answer.strings, dailyMinuteCap: z.string() })
      .transform((v, ctx) => ({
        onCallStartUrl: v.onCallStartUrl,
        onCallEndUrl: v.onCallEndUrl,
        onErrorUrl: v.onErrorUrl,
        ...answer.read(v, ctx),
        dailyMinuteCap: readDailyCap(v.dailyMinuteCap, ctx),
      }));
  }, [allowPrivate]);
  const defaultValues: UrlFormValues & AnswerPolicyFormValues & { dailyMinuteCap: string } = {
    onCallStartUrl: number.onCallStartUrl,
    onCallEndUrl: number.onCallEndUrl,
    onErrorUrl: number.onErrorUrl ?? "",
    ...answerPolicyFormValues(number),
    dailyMinuteCap: number.dailyMinuteCap === null ? "" : String(number.dailyMinuteCap),
  };
  const { form, field, formError, fail, onSubmit } = useApiForm({
    schema,
    names: { ...NUMBER_FIELD_NAMES, ...ANSWER_FIELD_NAMES, dailyMinuteCap: "Daily minute cap" },
    defaultValues,
    alert: true,
  });

  useEffect(() => {
    form.setFocus("onCallStartUrl");
  }, [form]);

  const update = useMutation(
    trpc.phoneNumbers.update.mutationOptions({
      onSuccess: async ({ phoneNumber }) => {
        toast.success(`Number ${phoneNumber.phoneNumber} updated`);
        // The list and every fallback preview: what the number does when its backend fails may have changed.
        await queryClient.invalidateQueries(trpc.phoneNumbers.pathFilter());
        onDone();
      },
      onError: (err) => fail(withFormPaths(err)),
    }),
  );

  const submit = onSubmit((values) => {
    const input: TUpdatePhoneNumberInput = { id: number.id };
    if (values.onCallStartUrl !== number.onCallStartUrl) input.onCallStartUrl = values.onCallStartUrl;
    if (values.onCallEndUrl !== number.onCallEndUrl) input.onCallEndUrl = values.onCallEndUrl;
    if (values.onErrorUrl !== number.onErrorUrl) input.onErrorUrl = values.onErrorUrl;
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    if (!same(values.answerTimeoutMs, number.answerTimeoutMs)) input.answerTimeoutMs = values.answerTimeoutMs;
    if (!same(values.fallback, number.fallback)) input.fallback = values.fallback;
    if (!same(values.lastResort, number.lastResort)) input.lastResort = values.lastResort;
    if (values.dailyMinuteCap !== number.dailyMinuteCap) input.dailyMinuteCap = values.dailyMinuteCap;
    if (Object.keys(input).length === 1) return onDone();
    update.mutate(input);
  });

  return (
    <form
      onSubmit={submit}
      noValidate
      data-testid="number-edit-form"
      className="mt-4 space-y-4 border-t border-slate-100 dark:border-slate-800 pt-4"
    >
      {formError ? (
        <Alert tone="error" title="The changes were not saved" data-testid="number-edit-error">
          {formError}
        </Alert>
      ) : null}
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <CallbackUrlFields
          field={field}
          policy={policy}
          hints={{
            onCallStartUrl: "Receives call.started.",
            onCallEndUrl: "Receives call.ended.",
            onErrorUrl: "Receives call.error. Empty it to stop sending errors.",
          }}
        />
      </div>
      <AnswerPolicyFields field={field} form={form} policy={policy} />
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <TextField
          label="Daily minute cap"
          hint="Billed minutes a UTC day may reach on this number; then its calls are refused (busy). Empty: no cap."
          inputMode="numeric"
          {...field("dailyMinuteCap")}
        />
      </div>
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="secondary" onClick={onDone} disabled={update.isPending}>
          Cancel
        </Button>
        <Button type="submit" loading={update.isPending}>
          Save changes
        </Button>
      </div>
    </form>
  );
}

/** The daily cap's box: empty is null (no cap, which clears it); otherwise the API's own rule judges it. */
function readDailyCap(text: string, ctx: z.RefinementCtx): number | null {
  if (text.trim() === "") return null;
  const r = ZDailyMinuteCap.safeParse(Number(text.trim()));
  if (r.success) return r.data;
  ctx.addIssue({ code: "custom", path: ["dailyMinuteCap"], message: "must be a whole number of minutes, 1 or more" });
  return z.NEVER;
}
