"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useMemo, useRef, useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { useToast } from "@/components/ui/toast";
import { appErrorOf, messageOf, useTRPC } from "@/lib/trpc/client";
import type { CallbackUrlPolicyOptions } from "@/server/callbacks/url-policy";
import { phoneNumberInputSchemas } from "@/server/schemas/phone-numbers";
import { errorsFromDetails, errorsFromIssues, focusFirstInvalid, type FieldErrors } from "@/lib/field-errors";
import { NUMBER_FIELD_NAMES, type NumberField } from "./number-fields";

const EMPTY: Record<NumberField, string> = { phoneNumber: "", onCallStartUrl: "", onCallEndUrl: "", onErrorUrl: "" };

export function urlHint(policy: CallbackUrlPolicyOptions, what: string): string {
  return policy.allowPrivate ? `An http or https URL. ${what}` : `A public HTTPS URL. ${what}`;
}

/** Registers a number, validated in the browser by the same schema the API applies. */
export function AddNumberForm({ policy }: { policy: CallbackUrlPolicyOptions }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const formRef = useRef<HTMLFormElement>(null);
  const { allowPrivate } = policy;
  const schema = useMemo(() => phoneNumberInputSchemas(() => ({ allowPrivate })).create, [allowPrivate]);

  const [values, setValues] = useState(EMPTY);
  const [errors, setErrors] = useState<FieldErrors<NumberField>>({});
  const [formError, setFormError] = useState<string | null>(null);

  const create = useMutation(
    trpc.phoneNumbers.create.mutationOptions({
      onSuccess: async ({ phoneNumber }) => {
        toast.success(`Number ${phoneNumber.phoneNumber} added`);
        setValues(EMPTY);
        setErrors({});
        setFormError(null);
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.phoneNumbers.list.queryKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.account.get.queryKey() }),
        ]);
      },
      onError: (err) => {
        const appError = appErrorOf(err);
        const message = appError?.message ?? messageOf(err);
        setFormError(message);
        setErrors(errorsFromDetails(NUMBER_FIELD_NAMES, appError?.details));
        toast.error(message);
        focusFirstInvalid(formRef.current);
      },
    }),
  );

  function field(name: NumberField) {
    return {
      name,
      value: values[name],
      error: errors[name],
      onChange: (e: { target: { value: string } }) => {
        const value = e.target.value;
        setValues((v) => ({ ...v, [name]: value }));
        if (errors[name]) setErrors((x) => ({ ...x, [name]: undefined }));
      },
    };
  }

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setFormError(null);
    const parsed = schema.safeParse({
      phoneNumber: values.phoneNumber,
      onCallStartUrl: values.onCallStartUrl,
      onCallEndUrl: values.onCallEndUrl,
      ...(values.onErrorUrl.trim() ? { onErrorUrl: values.onErrorUrl } : {}),
    });
    if (!parsed.success) {
      setErrors(errorsFromIssues(NUMBER_FIELD_NAMES, parsed.error.issues));
      focusFirstInvalid(formRef.current);
      return;
    }
    setErrors({});
    create.mutate(parsed.data);
  }

  return (
    <form ref={formRef} onSubmit={submit} noValidate data-testid="number-form" className="space-y-4">
      {formError ? (
        <Alert tone="error" title="The number was not added" data-testid="number-form-error">
          {formError}
        </Alert>
      ) : null}
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <TextField
          label="Phone number"
          hint="A US number in E.164 format, like +14155550123"
          placeholder="+14155550123"
          inputMode="tel"
          autoComplete="off"
          spellCheck={false}
          {...field("phoneNumber")}
        />
        <div className="hidden md:block" aria-hidden="true" />
        <TextField
          label="Call start URL"
          type="url"
          hint={urlHint(policy, "Receives call.started; its answer decides the call.")}
          placeholder="https://example.com/calls/start"
          autoComplete="off"
          spellCheck={false}
          {...field("onCallStartUrl")}
        />
        <TextField
          label="Call end URL"
          type="url"
          hint={urlHint(policy, "Receives call.ended.")}
          placeholder="https://example.com/calls/end"
          autoComplete="off"
          spellCheck={false}
          {...field("onCallEndUrl")}
        />
        <TextField
          label="Error URL (optional)"
          type="url"
          hint={urlHint(policy, "Receives call.error. Leave empty to skip.")}
          placeholder="https://example.com/calls/error"
          autoComplete="off"
          spellCheck={false}
          {...field("onErrorUrl")}
        />
      </div>
      <div className="flex justify-end">
        <Button type="submit" loading={create.isPending} className="w-full sm:w-auto">
          Add number
        </Button>
      </div>
    </form>
  );
}
