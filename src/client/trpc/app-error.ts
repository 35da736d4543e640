import { TRPCClientError } from "@trpc/client";
import type { AppRouter } from "@/server/trpc/root";

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
