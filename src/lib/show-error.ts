"use client";

import { useCallback } from "react";
import { useToast } from "@/components/ui/toast";
import { errorsFromDetails } from "@/lib/field-errors";
import { appErrorOf, messageOf } from "@/lib/trpc/app-error";

/**
 * The one rule for showing a failure, chosen by its kind, so each failure is
 * shown once:
 * - auth (UNAUTHORIZED): nothing here; the query client sends the browser to log-in;
 * - field validation (VALIDATION_FAILED naming a field of this form): under that field;
 * - any other failed action: one inline alert by the action when it has one, else one toast.
 * A failed page load is the page's own error state (ErrorState), never a toast.
 */
export type ErrorDisplay = { kind: "auth" } | { kind: "fields"; fields: Record<string, string> } | { kind: "action"; message: string };

export function errorDisplay(err: unknown, fieldNames?: Record<string, string>): ErrorDisplay {
  const appError = appErrorOf(err);
  if (appError?.code === "UNAUTHORIZED") return { kind: "auth" };
  if (appError?.code === "VALIDATION_FAILED" && fieldNames) {
    const fields = errorsFromDetails(fieldNames, appError.details) as Record<string, string>;
    if (Object.keys(fields).length > 0) return { kind: "fields", fields };
  }
  return { kind: "action", message: appError?.message ?? messageOf(err) };
}

export type ShowErrorOptions = {
  /** The form's field labels, and how to put a message under a field (react-hook-form's setError). */
  fields?: { names: Record<string, string>; set: (name: string, message: string) => void };
  /** The action's own alert; without it the failure is a toast. */
  inline?: (message: string) => void;
};

/** `showError(err, options)`: the display errorDisplay() picks, and only that one. */
export function useShowError() {
  const toast = useToast();
  return useCallback(
    (err: unknown, opts: ShowErrorOptions = {}) => {
      const display = errorDisplay(err, opts.fields?.names);
      if (display.kind === "auth") return;
      if (display.kind === "fields") {
        for (const [name, message] of Object.entries(display.fields)) opts.fields!.set(name, message);
        return;
      }
      if (opts.inline) opts.inline(display.message);
      else toast.error(display.message);
    },
    [toast],
  );
}
