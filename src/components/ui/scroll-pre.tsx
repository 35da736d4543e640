import type { ReactNode } from "react";

/**
 * Preformatted text in a box that scrolls: it takes focus (one tab stop), so the keyboard can scroll it as a
 * mouse can (WCAG 2.1.1; axe-core's scrollable-region-focusable).
 */
export function ScrollPre({
  children,
  className = "",
  ...rest
}: {
  children: ReactNode;
  className?: string;
  "data-testid"?: string;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must be reachable by the keyboard to be scrolled by it
    <pre tabIndex={0} className={className} {...rest}>
      {children}
    </pre>
  );
}
