"use client";

import { useId, useLayoutEffect, useRef, type ReactNode } from "react";
import { Button } from "./button";

/**
 * A record's details beside the list, in a native modal <dialog> sliding in from the right: it is a dialog to
 * assistive technology (named by its title), keeps focus inside while open, closes on Escape and on a click on
 * the backdrop, and hands focus back to what opened it. Its width never exceeds the screen's, so a phone shows
 * it whole without scrolling sideways. The page keeps which record is open in its URL; `onClose` clears it.
 */
export function Drawer({
  title,
  actions,
  children,
  onClose,
  "data-testid": testId,
}: {
  title: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  onClose: () => void;
  "data-testid"?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const titleId = useId();
  const unmounting = useRef(false);
  // Opened on mount (the page mounts a drawer for the record its URL names), closed on unmount. Closing hands
  // focus back to what opened it (the row's button), when it is still on the page: the browser does not when
  // the dialog leaves the document open.
  useLayoutEffect(() => {
    const d = ref.current;
    if (!d) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!d.open) d.showModal();
    // Keyboard and screen-reader users land on the record's name, not on its first button.
    headingRef.current?.focus();
    return () => {
      unmounting.current = true;
      if (d.open) d.close();
      if (opener && opener !== document.body) setTimeout(() => opener.isConnected && opener.focus(), 0);
    };
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      data-testid={testId}
      onKeyDown={(e) => {
        // Escape: the page closes it, by taking the record out of its URL (before the browser closes it alone).
        if (e.key !== "Escape") return;
        e.preventDefault();
        onClose();
      }}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onClose={() => {
        // Closed by the browser itself (a close request it would not let the page cancel): the URL follows.
        if (!unmounting.current) onClose();
      }}
      onClick={(e) => {
        // A click on the backdrop lands on the dialog element itself, outside its panel.
        if (e.target === e.currentTarget) onClose();
      }}
      className="fixed inset-y-0 right-0 left-auto m-0 h-dvh max-h-none w-full max-w-2xl overflow-hidden border-l border-slate-200 bg-white p-0 text-slate-900 shadow-2xl backdrop:bg-slate-900/40 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      <div className="flex h-full flex-col">
        <div className="flex flex-wrap items-start justify-between gap-2 border-b border-slate-100 px-4 py-3 sm:px-5 dark:border-slate-800">
          <h2
            id={titleId}
            ref={headingRef}
            tabIndex={-1}
            className="min-w-0 flex-1 break-all text-base font-semibold text-slate-900 focus:outline-none dark:text-slate-100"
          >
            {title}
          </h2>
          <div className="flex gap-2">
            {actions}
            <Button variant="secondary" size="sm" onClick={onClose}>
              Close
            </Button>
          </div>
        </div>
        <div className="min-h-0 flex-1 overflow-y-auto overflow-x-hidden p-4 sm:p-5">{children}</div>
      </div>
    </dialog>
  );
}
