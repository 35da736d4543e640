"use client";

import { useCallback } from "react";
import { useToast } from "@/client/toast";
import { errorDisplay } from "@/client/error-display";

export type ShowErrorOptions = {
  /** The form's field labels, and how to put a message under a field (react-hook-form's setError). */
  fields?: { names: Record<string, string>; set: (name: string, message: string) => void };
  /** The action's own alert; without it the failure is a toast. */
  inline?: (message: string) => void;
};

/** `showError(err, options)`: the one display errorDisplay() (client/error-display.ts) picks for this failure, and only that one. */
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
