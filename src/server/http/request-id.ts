import { randomUUID } from "node:crypto";

export const REQUEST_ID_HEADER = "x-request-id";

/** Keep a caller's id when it is a sane token (for tracing across services); otherwise make one. */
export function requestIdFrom(incoming: string | string[] | undefined | null): string {
  const value = Array.isArray(incoming) ? incoming[0] : incoming;
  return value && /^[A-Za-z0-9._:-]{1,128}$/.test(value) ? value : randomUUID();
}
