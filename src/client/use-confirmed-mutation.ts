"use client";

import { useMutation, type UseMutationOptions } from "@tanstack/react-query";
import { useState } from "react";
import { useShowError } from "@/client/show-error";

/**
 * A mutation behind a confirmation (revoke a key, delete a number, rotate a
 * secret…): `ask(subject)` opens the dialog for that subject, confirming runs
 * the mutation, and either outcome closes it. A failure is shown once, by the
 * one error display (`inline` for the action's own alert, else a toast).
 * Spread `dialog` on <ConfirmDialog>.
 */
export function useConfirmedMutation<TData, TError, TVariables, TSubject = void>(
  options: UseMutationOptions<TData, TError, TVariables>,
  opts: {
    /** The mutation's input for the subject asked about (omit when it takes none). */
    variablesOf?: (subject: TSubject) => TVariables;
    onSuccess?: (data: TData, subject: TSubject) => unknown;
    inline?: (message: string) => void;
  } = {},
) {
  const showError = useShowError();
  const [asked, setAsked] = useState<{ subject: TSubject } | null>(null);
  const mutation = useMutation(options);

  function confirm() {
    if (!asked) return;
    const { subject } = asked;
    mutation.mutate(opts.variablesOf ? opts.variablesOf(subject) : (undefined as TVariables), {
      onSuccess: async (data) => {
        setAsked(null);
        await opts.onSuccess?.(data, subject);
      },
      onError: (err) => {
        setAsked(null);
        showError(err, { inline: opts.inline });
      },
    });
  }

  return {
    mutation,
    /** What the open dialog is about, or null when it is closed. */
    subject: asked?.subject ?? null,
    ask: (subject: TSubject) => setAsked({ subject }),
    dialog: { open: asked !== null, busy: mutation.isPending, onConfirm: confirm, onCancel: () => setAsked(null) },
  };
}
