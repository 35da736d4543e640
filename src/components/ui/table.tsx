import type { ReactNode } from "react";

/**
 * A table on a desktop; at phone width each row stacks into a card whose
 * cells carry their column's name (Td's `label`), so the key columns and the
 * row's actions are on screen without scrolling sideways. Put status first.
 */
export function Table({ head, children, ...rest }: { head: ReactNode[]; children: ReactNode; "data-testid"?: string }) {
  return (
    <div className="overflow-x-auto max-sm:overflow-visible sm:-mx-0">
      <table
        className="min-w-full divide-y divide-slate-200 text-sm max-sm:block max-sm:divide-y-0 dark:divide-slate-700 max-sm:[&_tbody]:space-y-3 max-sm:[&_tr]:block max-sm:[&_tr]:rounded-lg max-sm:[&_tr]:border max-sm:[&_tr]:border-slate-200 max-sm:[&_tr]:p-3 dark:max-sm:[&_tr]:border-slate-700"
        {...rest}
      >
        <thead className="max-sm:sr-only">
          <tr>
            {head.map((h, i) => (
              <th
                // biome-ignore lint/suspicious/noArrayIndexKey: a table's columns are fixed for its lifetime
                key={i}
                scope="col"
                className="whitespace-nowrap px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400"
              >
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 max-sm:block max-sm:divide-y-0 dark:divide-slate-800">
          {children}
        </tbody>
      </table>
    </div>
  );
}

/** A cell; `label` (its column's name) is shown beside the value when the row is stacked on a phone. */
export function Td({
  children,
  label,
  className = "",
  ...rest
}: {
  children?: ReactNode;
  label?: string;
  className?: string;
  colSpan?: number;
  "data-testid"?: string;
}) {
  return (
    <td
      data-label={label || undefined}
      className={`whitespace-nowrap px-3 py-2.5 align-top text-slate-700 dark:text-slate-300 max-sm:flex max-sm:gap-3 max-sm:whitespace-normal max-sm:px-0 max-sm:py-1 max-sm:text-left ${label ? "max-sm:before:w-24 max-sm:before:shrink-0 max-sm:before:pt-0.5 max-sm:before:text-xs max-sm:before:font-sans max-sm:before:font-semibold max-sm:before:uppercase max-sm:before:tracking-wide max-sm:before:text-slate-500 max-sm:before:content-[attr(data-label)]" : ""} ${className}`}
      {...rest}
    >
      <div className="min-w-0 max-sm:flex-1">{children}</div>
    </td>
  );
}

/**
 * A row that opens its record wherever it is clicked. The row's own button (its last cell) stays the way in
 * for the keyboard and for screen readers; a click on that button, on a link, or one that ends a text
 * selection does not count twice.
 */
export function clickableRow(open: () => void) {
  return {
    onClick: (e: { target: EventTarget | null; currentTarget: HTMLElement }) => {
      const target = e.target as HTMLElement | null;
      const interactive = target?.closest("a, button, input, select, textarea, label, summary");
      if (interactive && interactive !== e.currentTarget && e.currentTarget.contains(interactive)) return;
      if (window.getSelection()?.toString()) return;
      open();
    },
    className: "cursor-pointer hover:bg-slate-50 dark:hover:bg-slate-800/60",
  };
}
