import {
  useId,
  type InputHTMLAttributes,
  type ReactNode,
  type Ref,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from "react";
import { useHydrated } from "@/client/use-hydrated";

/**
 * A controlled field (value and onChange from React) is disabled until the page
 * is hydrated: its handler could otherwise read the rendered value back instead
 * of the one chosen (see useHydrated). Uncontrolled fields, which the forms that
 * work without JavaScript use, are never held back.
 */
function useEarlyControlled(props: { value?: unknown; onChange?: unknown }): boolean {
  const hydrated = useHydrated();
  return !hydrated && props.value !== undefined && props.onChange !== undefined;
}

const INPUT =
  "block w-full rounded-md border-0 bg-white dark:bg-slate-900 px-3 py-2 text-sm text-slate-900 dark:text-slate-100 shadow-sm ring-1 ring-inset placeholder:text-slate-400 focus:ring-2 focus:ring-inset focus:ring-indigo-600 disabled:cursor-not-allowed disabled:bg-slate-100 disabled:text-slate-500 dark:disabled:bg-slate-800/60";

/** A labelled input with its hint and its error, wired up for screen readers. */
export function TextField({
  label,
  hint,
  error,
  className = "",
  ...input
}: InputHTMLAttributes<HTMLInputElement> & {
  label: string;
  hint?: ReactNode;
  error?: string | null;
  ref?: Ref<HTMLInputElement>;
}) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  const early = useEarlyControlled(input);
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-800 dark:text-slate-200">
        {label}
      </label>
      <input
        id={id}
        {...input}
        disabled={input.disabled || early}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        className={`mt-1 ${INPUT} ${error ? "ring-red-400" : "ring-slate-300 dark:ring-slate-600"}`}
      />
      {hint ? (
        <p id={`${id}-hint`} className="mt-1 text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} role="alert" className="mt-1 text-xs font-medium text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function SelectField({
  label,
  children,
  className = "",
  ...select
}: SelectHTMLAttributes<HTMLSelectElement> & { label: string; children: ReactNode }) {
  const id = useId();
  const early = useEarlyControlled(select);
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-800 dark:text-slate-200">
        {label}
      </label>
      <select
        id={id}
        {...select}
        disabled={select.disabled || early}
        className={`mt-1 ${INPUT} ring-slate-300 dark:ring-slate-600`}
      >
        {children}
      </select>
    </div>
  );
}

/** A labelled multi-line input (JSON, TwiML) with its hint and its error, as TextField. */
export function TextAreaField({
  label,
  hint,
  error,
  className = "",
  ...area
}: TextareaHTMLAttributes<HTMLTextAreaElement> & {
  label: string;
  hint?: ReactNode;
  error?: string | null;
  ref?: Ref<HTMLTextAreaElement>;
}) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-800 dark:text-slate-200">
        {label}
      </label>
      <textarea
        id={id}
        rows={4}
        {...area}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        className={`mt-1 font-mono ${INPUT} ${error ? "ring-red-400" : "ring-slate-300 dark:ring-slate-600"}`}
      />
      {hint ? (
        <p id={`${id}-hint`} className="mt-1 text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} role="alert" className="mt-1 text-xs font-medium text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </div>
  );
}
