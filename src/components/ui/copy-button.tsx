"use client";

import { useState } from "react";
import { buttonClasses } from "./button";

/** Copies `value` to the clipboard; falls back to selecting it where the clipboard API is unavailable (plain http). */
export function CopyButton({
  value,
  label = "Copy",
  ...rest
}: {
  value: string;
  label?: string;
  "data-testid"?: string;
}) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      const area = document.createElement("textarea");
      area.value = value;
      document.body.appendChild(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  }
  return (
    <button type="button" onClick={() => void copy()} className={buttonClasses("secondary", "sm")} {...rest}>
      <span aria-live="polite">{copied ? "Copied" : label}</span>
    </button>
  );
}

/** A value people copy: monospace, wraps on small screens, with its copy button. */
export function CopyField({ value, label, ...rest }: { value: string; label: string; "data-testid"?: string }) {
  return (
    <div>
      <p className="text-sm font-medium text-slate-800 dark:text-slate-200">{label}</p>
      <div className="mt-1 flex items-start gap-2">
        <code
          className="min-w-0 flex-1 break-all rounded-md bg-slate-100 dark:bg-slate-800 px-3 py-2 font-mono text-xs text-slate-900 dark:text-slate-100"
          {...rest}
        >
          {value}
        </code>
        <CopyButton value={value} label={`Copy`} />
      </div>
    </div>
  );
}
