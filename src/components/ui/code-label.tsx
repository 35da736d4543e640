import { codeLabel } from "@/shared/call-outcomes";

/**
 * A code the API speaks (an answer form, an error code, an end reason) as the interface shows it: the human
 * label, then the code in small type, so a person reads the one and can search the reference for the other.
 * A code without a label (or none) is shown as it is.
 */
export function CodeLabel({ code, "data-testid": testId }: { code: string | null; "data-testid"?: string }) {
  if (!code) return <span data-testid={testId}>—</span>;
  const label = codeLabel(code);
  return (
    <span data-testid={testId} data-code={code}>
      {label ? <span className="font-medium">{label}</span> : null}
      {label ? " " : null}
      <code className="font-mono text-xs text-slate-500 dark:text-slate-400">{code}</code>
    </span>
  );
}
