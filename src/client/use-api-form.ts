"use client";

import { useState } from "react";
import { type FieldValues, type Path, type UseFormProps, useForm } from "react-hook-form";
import type { z } from "zod";
import { apiSchemaResolver } from "@/client/api-schema-resolver";
import { fieldBinder } from "@/shared/form-field";
import { useShowError } from "@/client/show-error";

/**
 * The one form hook: react-hook-form validated by the API's own zod schema
 * (messages become "Label must …" sentences), fields bound by `field(name)`,
 * and a failure shown once by `fail(err)`: under the fields the API named,
 * else in the form's own alert (`formError`, when `alert` is set) or a toast.
 * `onSubmit(handler)` clears the alert on every attempt (valid or not), so a new error replaces the old.
 */
export function useApiForm<Values extends FieldValues, Output>({
  schema,
  names,
  alert = false,
  initialError = null,
  ...options
}: Omit<UseFormProps<Values, unknown, Output>, "resolver"> & {
  /** The schema the API applies to this input. */
  schema: z.ZodType<Output, Values>;
  /** Each field's label, which leads its error sentence; a field not named here gets no API error under it. */
  names: Partial<Record<Path<Values>, string>>;
  /** The form shows an action's failure in its own alert (`formError`) rather than a toast. */
  alert?: boolean;
  /** The alert's first message, such as the one a no-JavaScript post redirected back with. */
  initialError?: string | null;
}) {
  const labels = names as Record<string, string>;
  const form = useForm<Values, unknown, Output>({ ...options, resolver: apiSchemaResolver(schema, labels) });
  const showError = useShowError();
  const [formError, setFormError] = useState<string | null>(initialError);

  const fail = (err: unknown) =>
    showError(err, {
      fields: {
        names: labels,
        set: (name, message) => form.setError(name as Path<Values>, { message }, { shouldFocus: true }),
      },
      inline: alert ? setFormError : undefined,
    });

  // Every attempt clears the alert, a refused one too: the browser's new field error never stands
  // beside the server's old message.
  const onSubmit = (handler: (values: Output) => unknown) =>
    form.handleSubmit(
      async (values) => {
        setFormError(null);
        await handler(values);
      },
      () => setFormError(null),
    );

  return { form, field: fieldBinder(form), formError, setFormError, fail, onSubmit };
}
