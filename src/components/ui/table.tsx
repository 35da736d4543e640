import type { ReactNode } from "react";

/** A table that scrolls sideways on a phone instead of breaking the page. */
export function Table({ head, children, ...rest }: { head: ReactNode[]; children: ReactNode; "data-testid"?: string }) {
  return (
    <div className="-mx-4 overflow-x-auto sm:mx-0">
      <table className="min-w-full divide-y divide-slate-200 text-sm" {...rest}>
        <thead>
          <tr>
            {head.map((h, i) => (
              <th key={i} scope="col" className="whitespace-nowrap px-4 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-500 sm:px-3">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">{children}</tbody>
      </table>
    </div>
  );
}

export function Td({ children, className = "", ...rest }: { children?: ReactNode; className?: string; colSpan?: number; "data-testid"?: string }) {
  return (
    <td className={`whitespace-nowrap px-4 py-2.5 align-top text-slate-700 sm:px-3 ${className}`} {...rest}>
      {children}
    </td>
  );
}
