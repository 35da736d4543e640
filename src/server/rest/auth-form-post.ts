import "server-only";
import { safeRedirectPath } from "@/shared/safe-redirect";
import { AppError } from "@/server/errors/app-error";
import { env } from "@/server/env";
import { toErrorResponse } from "@/server/errors/to-error-response";
import { logger } from "@/server/logger";
import { CLIENT_IP_HEADER } from "@/server/http/client-ip";
import { REQUEST_ID_HEADER, requestIdFrom } from "@/server/http/request-id";
import type { Context } from "@/server/trpc/init";

/**
 * Helpers for the HTML forms that post without JavaScript (log-in, sign-up,
 * reset). They are plain form posts, so they are guarded against cross-site
 * posting (a page elsewhere must not sign a visitor into an account of its
 * choosing): by Sec-Fetch-Site where the browser sends it, else by Origin.
 * Pages with `Referrer-Policy: no-referrer` (the mailed-link pages) make the
 * browser send `Origin: null`, which is why Sec-Fetch-Site comes first.
 */
export function sameOrigin(req: Request): boolean {
  const site = req.headers.get("sec-fetch-site");
  if (site) return site === "same-origin";
  const origin = req.headers.get("origin");
  if (!origin || origin === "null") return false;
  return origin === new URL(env().publicBaseUrl).origin || origin === new URL(req.url).origin;
}

/** The procedure context of a form post: the same address and request id as every other request. */
export function formContext(req: Request): Context {
  return {
    requestId: requestIdFrom(req.headers.get(REQUEST_ID_HEADER)),
    ip: req.headers.get(CLIENT_IP_HEADER) ?? "unknown",
    authorization: null,
  };
}

/** The form's fields as strings (a file or a missing field is ""). Bodies are small: the input boundary caps them at 64 KiB. */
export async function formFields(req: Request): Promise<Record<string, string>> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b|^multipart\/form-data\b/i.test(type))
    throw new AppError("VALIDATION_FAILED", "Send the form.");
  const form = await req.formData();
  const out: Record<string, string> = {};
  for (const [k, v] of form.entries()) if (typeof v === "string") out[k] = v;
  return out;
}

/** A 303 to a path of this site (with query), the way a form post moves on. */
export function seeOther(pathWithQuery: string, setCookie?: string): Response {
  // Through the one redirect guard, whatever built the path (docs/decisions.md §20).
  const headers = new Headers({ location: safeRedirectPath(pathWithQuery), "cache-control": "no-store" });
  if (setCookie) headers.append("set-cookie", setCookie);
  return new Response(null, { status: 303, headers });
}

/** What a person reads when a form post fails: the API's sentence, with the first field's problem. */
export function errorSentence(err: unknown, requestId: string): string {
  const { body, status } = toErrorResponse(err);
  if (status >= 500)
    logger().error({ requestId, err: err instanceof Error ? err.message : String(err) }, "form post failed");
  const detail = body.error.details?.[0];
  return detail ? `${body.error.message} ${detail.path}: ${detail.message}.` : body.error.message;
}
