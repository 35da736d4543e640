import type { ReactNode } from "react";
import { Spinner } from "./button";
import { Alert } from "./alert";

export function LoadingState({ label = "Loading…" }: { label?: string }) {
  return (
    <div className="flex items-center justify-center py-10 text-sm text-slate-500 dark:text-slate-400">
      <Spinner label={label} />
    </div>
  );
}

export function EmptyState({
  title,
  children,
  action,
  ...rest
}: {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
  "data-testid"?: string;
}) {
  return (
    <div
      className="rounded-lg border border-dashed border-slate-300 dark:border-slate-600 px-6 py-10 text-center"
      {...rest}
    >
      <p className="font-semibold text-slate-900 dark:text-slate-100">{title}</p>
      {children ? (
        <div className="mx-auto mt-1 max-w-md text-sm text-slate-600 dark:text-slate-400">{children}</div>
      ) : null}
      {action ? <div className="mt-4">{action}</div> : null}
    </div>
  );
}

export function ErrorState({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <Alert
      tone="error"
      title="This could not be loaded"
      actions={
        onRetry ? (
          <button
            type="button"
            onClick={onRetry}
            className="rounded-md bg-white dark:bg-slate-900 px-2.5 py-1.5 text-xs font-semibold text-red-800 dark:text-red-300 ring-1 ring-inset ring-red-300 dark:ring-red-700 hover:bg-red-50 dark:hover:bg-red-950"
          >
            Try again
          </button>
        ) : null
      }
    >
      {message}
    </Alert>
  );
}
