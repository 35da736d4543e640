import NextAuth from "next-auth";
import { authOptions } from "@/server/trpc/dashboard-session";
import { AppError } from "@/server/errors/app-error";
import { DEFAULT_MESSAGE, ERROR_STATUS, type ErrorCode } from "@/server/errors/error-codes";
import { JSON_HEADERS } from "@/server/http/body";
import { logger } from "@/server/logger";
import { errorResponse } from "@/server/http/error-response";
import { REQUEST_ID_HEADER, requestContextOf } from "@/server/http/request-context";

// next-auth's endpoints (csrf, callback/credentials, session, signout) for the dashboard.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * The actions the dashboard uses, by method. next-auth answers anything else
 * with a plain-text 400 or, for some (a GET on a credentials callback, an
 * unknown action), a 500; those never reach it.
 */
const ACTIONS: Record<string, readonly string[]> = {
  GET: ["csrf", "session", "providers", "signin", "signout", "error"],
  POST: ["signin/credentials", "callback/credentials", "signout", "session", "_log"],
};

/** next-auth's own test (core/lib/assert.js): an http(s) URL, or a path. It answers anything else with a 500. */
function isHttpUrlOrPath(value: string): boolean {
  try {
    return /^https?:$/.test(new URL(value, value.startsWith("/") ? "http://n" : undefined).protocol);
  } catch {
    return false;
  }
}

/** The callback URL next-auth checks, from the query or its cookie, when it would refuse it. */
function badCallbackUrl(req: Request): boolean {
  const fromQuery = new URL(req.url).searchParams.get("callbackUrl");
  const fromCookie = /(?:^|;\s*)(?:__Secure-)?next-auth\.callback-url=([^;]*)/.exec(
    req.headers.get("cookie") ?? "",
  )?.[1];
  const cookie = fromCookie === undefined ? null : safeDecode(fromCookie);
  return (
    (fromQuery !== null && fromQuery !== "" && !isHttpUrlOrPath(fromQuery)) ||
    (cookie !== null && cookie !== "" && !isHttpUrlOrPath(cookie))
  );
}

function safeDecode(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

type RouteContext = { params: Promise<{ nextauth: string[] }> };

async function handler(req: Request, ctx: RouteContext): Promise<Response> {
  const { requestId } = requestContextOf(req.headers);
  const action = (await ctx.params).nextauth.join("/");
  const method = req.method === "HEAD" ? "GET" : req.method;
  if (!ACTIONS[method]?.includes(action)) {
    const allowed = Object.keys(ACTIONS).filter((m) => ACTIONS[m]!.includes(action));
    if (!allowed.length)
      return errorResponse(new AppError("NOT_FOUND", `No such session endpoint: ${action}`), req, requestId);
    const res = errorResponse(
      new AppError(
        "METHOD_NOT_ALLOWED",
        `${req.method} is not allowed on this session endpoint; use ${allowed.join(", ")}.`,
      ),
      req,
      requestId,
    );
    res.headers.set("allow", allowed.join(", "));
    return res;
  }
  if (badCallbackUrl(req))
    return errorResponse(
      new AppError("VALIDATION_FAILED", "callbackUrl must be an http(s) URL or a path."),
      req,
      requestId,
    );
  const res = (await NextAuth(req as never, ctx as never, authOptions())) as Response;
  if (res.status < 400) return res;
  return inEnvelope(res, requestId);
}

const CODE_FOR_STATUS: Record<number, ErrorCode> = {
  400: "VALIDATION_FAILED",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  429: "RATE_LIMITED",
};

/**
 * next-auth's own refusals (a wrong password, a missing CSRF token) in the
 * envelope. Its client reads `url` (where the error sentence travels) from the
 * same body, and its cookies stay, so both are kept beside `error`.
 */
async function inEnvelope(res: Response, requestId: string): Promise<Response> {
  const text = await res.text();
  let theirs: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) theirs = parsed as Record<string, unknown>;
  } catch {
    // A plain-text refusal carries nothing the client reads.
  }
  const code = res.status >= 500 ? "INTERNAL" : (CODE_FOR_STATUS[res.status] ?? "VALIDATION_FAILED");
  if (code === "INTERNAL")
    logger().error({ requestId, status: res.status, body: text.slice(0, 200) }, "session endpoint failed");
  let message = code === "FORBIDDEN" ? "The session request is not allowed." : DEFAULT_MESSAGE[code];
  try {
    message = (typeof theirs.url === "string" && new URL(theirs.url).searchParams.get("error")) || message;
  } catch {
    // not a URL: keep the table's sentence
  }
  const headers = new Headers(res.headers);
  for (const [name, value] of Object.entries(JSON_HEADERS)) headers.set(name, value);
  headers.set(REQUEST_ID_HEADER, requestId);
  headers.delete("content-length");
  return new Response(JSON.stringify({ ...theirs, error: { code, message } }), { status: ERROR_STATUS[code], headers });
}

export { handler as GET, handler as POST };
