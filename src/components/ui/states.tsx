import type { ReactNode } from "react";
import { Spinner } from "./button";
import { Alert } from "./alert";

export function LoadingState({ label = "Loading…" }: { label?: string }) {
  return (
    <div className="flex items-center justify-center py-10 text-sm text-slate-500">
      <Spinner label={label} />
    </div>
  );
}

export function EmptyState({ title, children, action, ...rest }: { title: string; children?: ReactNode; action?: ReactNode; "data-testid"?: string }) {
  return (
    <div className="rounded-lg border border-dashed border-slate-300 px-6 py-10 text-center" {...rest}>
      <p className="font-semibold text-slate-900">{title}</p>
      {children ? <div className="mx-auto mt-1 max-w-md text-sm text-slate-600">{children}</div> : null}
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
          <button type="button" onClick={onRetry} className="rounded-md bg-white px-2.5 py-1.5 text-xs font-semibold text-red-800 ring-1 ring-inset ring-red-300 hover:bg-red-50">
            Try again
          </button>
        ) : null
      }
    >
      {message}
    </Alert>
  );
}
