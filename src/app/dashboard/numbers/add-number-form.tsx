"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useMemo } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { useToast } from "@/client/toast";
import { useForbiddenReason } from "@/client/use-forbidden-reason";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import type { CallbackUrlPolicyOptions } from "@/shared/url-policy";
import { CallbackUrlFields } from "./callback-url-fields";
import { NUMBER_FIELD_NAMES } from "./number-fields";
import { createNumberFormSchema, type NumberFormValues } from "./number-form-schemas";

const EMPTY: NumberFormValues = { phoneNumber: "", onCallStartUrl: "", onCallEndUrl: "", onErrorUrl: "" };

/** Registers a number, validated in the browser by the same schema the API applies. */
export function AddNumberForm({ policy }: { policy: CallbackUrlPolicyOptions }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const forbidden = useForbiddenReason("registerNumber");
  const { allowPrivate } = policy;
  const schema = useMemo(() => createNumberFormSchema({ allowPrivate }), [allowPrivate]);
  const { form, field, formError, fail, onSubmit } = useApiForm({
    schema,
    names: NUMBER_FIELD_NAMES,
    defaultValues: EMPTY,
    alert: true,
  });

  const create = useMutation(
    trpc.phoneNumbers.create.mutationOptions({
      onSuccess: async ({ phoneNumber }) => {
        toast.success(`Number ${phoneNumber.phoneNumber} added`);
        form.reset(EMPTY);
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.phoneNumbers.list.queryKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.account.get.queryKey() }),
        ]);
      },
      onError: fail,
    }),
  );

  const submit = onSubmit((input) => create.mutate(input));

  return (
    <form onSubmit={submit} noValidate data-testid="number-form" className="space-y-4">
      {formError ? (
        <Alert tone="error" title="The number was not added" data-testid="number-form-error">
          {formError}
        </Alert>
      ) : null}
      <fieldset disabled={forbidden !== null} className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <TextField
          label="Phone number"
          hint="A US number, like (415) 555-0123 or +14155550123; it is saved in E.164"
          placeholder="+14155550123"
          inputMode="tel"
          autoComplete="off"
          spellCheck={false}
          {...field("phoneNumber")}
        />
        <div className="hidden md:block" aria-hidden="true" />
        <CallbackUrlFields
          field={field}
          policy={policy}
          examples
          hints={{
            onCallStartUrl: "Receives call.started; its answer decides the call.",
            onCallEndUrl: "Receives call.ended.",
            onErrorUrl: "Receives call.error. Leave empty to skip.",
          }}
        />
      </fieldset>
      <div className="flex flex-col items-stretch gap-2 sm:flex-row sm:items-center sm:justify-end">
        <ForbiddenReason reason={forbidden} id="add-number-forbidden" />
        <Button
          type="submit"
          loading={create.isPending}
          disabled={forbidden !== null}
          aria-describedby={forbidden ? "add-number-forbidden" : undefined}
          className="w-full sm:w-auto"
        >
          Add number
        </Button>
      </div>
    </form>
  );
}
