import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { appErrorOf } from "./app-error";

// An expired or revoked session: back to log-in, then back here (browser only; the server has no window).
function onUnauthorized(err: unknown) {
  if (typeof window !== "undefined" && appErrorOf(err)?.code === "UNAUTHORIZED") {
    window.location.assign(
      `/login?callbackUrl=${encodeURIComponent(window.location.pathname + window.location.search)}`,
    );
  }
}

/**
 * The one QueryClient recipe, for server prefetches and the browser alike
 * (create-t3-app's shape): the same stale time on both sides means hydrated
 * data is not refetched at once.
 */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: onUnauthorized }),
    mutationCache: new MutationCache({ onError: onUnauthorized }),
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        retry: (count, err) =>
          count < 2 && !appErrorOf(err)?.code.match(/UNAUTHORIZED|NOT_FOUND|VALIDATION_FAILED|NUMBER_NOT_OWNED/),
      },
    },
  });
}
