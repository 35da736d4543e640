"use client";

import { QueryCache, QueryClient, QueryClientProvider, MutationCache, isServer } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { SessionProvider } from "next-auth/react";
import { useState, type ReactNode } from "react";
import { z } from "zod";
import type { AppRouter } from "@/server/trpc/root";
import { SESSION_BASE_PATH } from "@/lib/session-path";
import { ToastProvider } from "@/components/ui/toast";

// Pages run under a CSP without eval (src/proxy.ts); zod's compiled fast path probes for eval, a reported violation.
if (typeof window !== "undefined") z.config({ jitless: true });

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

export type AppErrorShape = { code: string; message: string; details?: { path: string; message: string }[] };

/** The API's error (code, sentence, field details) carried by a tRPC error. */
export function appErrorOf(err: unknown): AppErrorShape | null {
  if (err instanceof TRPCClientError) {
    const data = (err as TRPCClientError<AppRouter>).data as { appError?: AppErrorShape } | undefined;
    return data?.appError ?? { code: "INTERNAL", message: err.message };
  }
  return null;
}

/** A sentence for a person, whatever failed. */
export function messageOf(err: unknown): string {
  return appErrorOf(err)?.message ?? (err instanceof Error ? err.message : "Something went wrong.");
}

// An expired or revoked session: back to log-in, then back here.
function onUnauthorized(err: unknown) {
  if (typeof window !== "undefined" && appErrorOf(err)?.code === "UNAUTHORIZED") {
    window.location.assign(`/login?callbackUrl=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  }
}

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: onUnauthorized }),
    mutationCache: new MutationCache({ onError: onUnauthorized }),
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        retry: (count, err) => count < 2 && !appErrorOf(err)?.code.match(/UNAUTHORIZED|NOT_FOUND|VALIDATION_FAILED|NUMBER_NOT_OWNED/),
      },
    },
  });
}

let browserQueryClient: QueryClient | undefined;
function getQueryClient(): QueryClient {
  if (isServer) return makeQueryClient();
  return (browserQueryClient ??= makeQueryClient());
}

export function Providers({ children }: { children: ReactNode }) {
  const queryClient = getQueryClient();
  const [trpcClient] = useState(() => createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/api/trpc" })] }));
  return (
    <SessionProvider basePath={SESSION_BASE_PATH} refetchOnWindowFocus={false}>
      <QueryClientProvider client={queryClient}>
        <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
          <ToastProvider>{children}</ToastProvider>
        </TRPCProvider>
      </QueryClientProvider>
    </SessionProvider>
  );
}
