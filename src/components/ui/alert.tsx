import type { ReactNode } from "react";

type Tone = "info" | "warning" | "error" | "success";
const TONES: Record<Tone, string> = {
  info: "border-indigo-200 dark:border-indigo-800 bg-indigo-50 dark:bg-indigo-950/60 text-indigo-900 dark:text-indigo-100",
  warning: "border-amber-200 dark:border-amber-800 bg-amber-50 dark:bg-amber-950/40 text-amber-900 dark:text-amber-100",
  error: "border-red-200 dark:border-red-800 bg-red-50 dark:bg-red-950/40 text-red-900 dark:text-red-100",
  success: "border-green-200 dark:border-green-800 bg-green-50 dark:bg-green-950/40 text-green-900 dark:text-green-100",
};

export function Alert({
  tone = "info",
  title,
  children,
  actions,
  ...rest
}: {
  tone?: Tone;
  title?: ReactNode;
  children?: ReactNode;
  actions?: ReactNode;
  "data-testid"?: string;
}) {
  return (
    <div
      role={tone === "error" ? "alert" : "status"}
      className={`rounded-lg border p-4 text-sm ${TONES[tone]}`}
      {...rest}
    >
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="min-w-0">
          {title ? <p className="font-semibold">{title}</p> : null}
          {children ? <div className={title ? "mt-1" : ""}>{children}</div> : null}
        </div>
        {actions ? <div className="flex shrink-0 gap-2">{actions}</div> : null}
      </div>
    </div>
  );
}
