import type { ReactNode } from "react";
import { statusLabel } from "@/shared/format";

type Tone = "green" | "amber" | "red" | "slate" | "indigo";
const TONES: Record<Tone, string> = {
  green: "bg-green-50 dark:bg-green-950/40 text-green-800 dark:text-green-300 ring-green-600/20",
  amber: "bg-amber-50 dark:bg-amber-950/40 text-amber-800 dark:text-amber-300 ring-amber-600/20",
  red: "bg-red-50 dark:bg-red-950/40 text-red-700 dark:text-red-300 ring-red-600/20",
  slate: "bg-slate-100 dark:bg-slate-800 text-slate-700 dark:text-slate-300 ring-slate-500/20",
  indigo: "bg-indigo-50 dark:bg-indigo-950/60 text-indigo-700 dark:text-indigo-300 ring-indigo-600/20",
};

export function Badge({
  tone = "slate",
  children,
  ...rest
}: {
  tone?: Tone;
  children: ReactNode;
  "data-testid"?: string;
  title?: string;
}) {
  return (
    <span
      className={`inline-flex items-center rounded-md px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${TONES[tone]}`}
      {...rest}
    >
      {children}
    </span>
  );
}

const STATUS_TONE: Record<string, Tone> = {
  ACTIVE: "green",
  INACTIVE: "amber",
  SUSPENDED: "red",
  DELIVERED: "green",
  PENDING: "amber",
  FAILED: "red",
};

/** Account and delivery statuses, coloured and written the same everywhere (statusLabel; the code on hover). */
export function StatusBadge({ status, ...rest }: { status: string; "data-testid"?: string }) {
  return (
    <Badge tone={STATUS_TONE[status] ?? "slate"} title={status} {...rest}>
      {statusLabel(status)}
    </Badge>
  );
}
