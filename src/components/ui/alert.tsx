import type { ReactNode } from "react";

type Tone = "info" | "warning" | "error" | "success";
const TONES: Record<Tone, string> = {
  info: "border-indigo-200 bg-indigo-50 text-indigo-900",
  warning: "border-amber-200 bg-amber-50 text-amber-900",
  error: "border-red-200 bg-red-50 text-red-900",
  success: "border-green-200 bg-green-50 text-green-900",
};

export function Alert({ tone = "info", title, children, actions, ...rest }: { tone?: Tone; title?: ReactNode; children?: ReactNode; actions?: ReactNode; "data-testid"?: string }) {
  return (
    <div role={tone === "error" ? "alert" : "status"} className={`rounded-lg border p-4 text-sm ${TONES[tone]}`} {...rest}>
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
