"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * False in the server's HTML and while React hydrates it, true once the page's
 * scripts own it. A controlled field shown before hydration must not take
 * input: React replays an early change event only after it has put the field
 * back to its rendered value, so the handler would read the old value (a
 * status filter chosen too early cleared every filter).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
