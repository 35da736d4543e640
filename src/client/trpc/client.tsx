"use client";

import { QueryClientProvider, isServer, type QueryClient } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { SessionProvider } from "next-auth/react";
import { useState, type ReactNode } from "react";
import { z } from "zod";
import type { AppRouter } from "@/server/trpc/root";
import { SESSION_BASE_PATH } from "@/shared/session-path";
import { ToastProvider } from "@/client/toast";
import { makeQueryClient } from "./query-client";

// Pages run under a CSP without eval (src/proxy.ts); zod's compiled fast path probes for eval, a reported violation.
if (typeof window !== "undefined") z.config({ jitless: true });

const trpcContext = createTRPCContext<AppRouter>();
const { TRPCProvider } = trpcContext;
export const { useTRPC } = trpcContext;

export { appErrorOf, messageOf } from "./app-error";

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
