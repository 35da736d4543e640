import { errorsFromDetails } from "@/shared/field-errors";
import { appErrorOf, messageOf } from "@/client/trpc/app-error";

/**
 * The one rule for showing a failure, chosen by its kind, so each failure is
 * shown once:
 * - auth (UNAUTHORIZED): nothing here; the query client sends the browser to log-in;
 * - field validation (VALIDATION_FAILED naming a field of this form): under that field;
 * - any other failed action: one inline alert by the action when it has one, else one toast.
 * A failed page load is the page's own error state (ErrorState), never a toast.
 */
export type ErrorDisplay =
  | { kind: "auth" }
  | { kind: "fields"; fields: Record<string, string> }
  | { kind: "action"; message: string };

export function errorDisplay(err: unknown, fieldNames?: Record<string, string>): ErrorDisplay {
  const appError = appErrorOf(err);
  if (appError?.code === "UNAUTHORIZED") return { kind: "auth" };
  if (appError?.code === "VALIDATION_FAILED" && fieldNames) {
    const fields = errorsFromDetails(fieldNames, appError.details) as Record<string, string>;
    if (Object.keys(fields).length > 0) return { kind: "fields", fields };
  }
  return { kind: "action", message: appError?.message ?? messageOf(err) };
}
