import "server-only";
import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { cookies, headers } from "next/headers";
import { cache, type ReactNode } from "react";
import { sessionAuthorization } from "@/server/trpc/dashboard-session";
import { requestContextOf } from "@/server/http/request-context";
import type { Context } from "@/server/trpc/init";
import { appRouter, createCaller } from "@/server/trpc/root";
import { makeQueryClient } from "../../client/trpc/query-client";

/** The session's procedure context in a server component: the same as the /api/trpc transport builds. */
const sessionContext = cache(async (): Promise<Context> => {
  const h = await headers();
  const c = await cookies();
  return {
    ...requestContextOf(h),
    authorization: await sessionAuthorization({
      headers: h,
      cookies: Object.fromEntries(c.getAll().map((x) => [x.name, x.value])),
    }),
  };
});

// One client per request, made by the same recipe as the browser's.
export const getQueryClient = cache(makeQueryClient);

/** Server-side prefetch: `void prefetch(trpc.x.queryOptions())`, then render inside <HydrateClient>. */
export const trpc = createTRPCOptionsProxy({ ctx: sessionContext, router: appRouter, queryClient: getQueryClient });

export async function serverCaller() {
  return createCaller(await sessionContext());
}

export function HydrateClient({ children }: { children: ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}
