import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { cookiesOf, sessionAuthorization } from "@/server/trpc/dashboard-session";
import { AppError } from "@/server/errors/app-error";
import { toErrorResponse } from "@/server/errors/to-error-response";
import { JSON_HEADERS } from "@/server/http/body";
import { errorResponse } from "@/server/http/error-response";
import { REQUEST_ID_HEADER, requestContextOf } from "@/server/http/request-context";
import { logger } from "@/server/logger";
import { POLICIES, enforceRateLimit } from "@/server/rate-limit/rate-limiter";
import { IDEMPOTENT_REPLAYED_HEADER, type ResponseMeta } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/root";

/**
 * The dashboard's transport: the same procedures as the REST API, over tRPC,
 * authenticated by the session cookie (never by an Authorization header, so a
 * stolen API key cannot drive it and the dashboard cannot be driven without a session).
 */
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const ENDPOINT = "/api/trpc";
/** docs/decisions.md §3: one request runs at most this many procedures (the dashboard's batches stay far below). */
export const MAX_BATCH_SIZE = 10;

/** Procedures named in the path: `a,b,c` when batched (`?batch=1`), else one. */
function procedureCount(url: URL): number {
  if (url.searchParams.get("batch") !== "1") return 1;
  return url.pathname.slice(ENDPOINT.length + 1).split(",").length;
}

async function handler(req: Request): Promise<Response> {
  const { requestId, ip } = requestContextOf(req.headers);
  const responseMeta: ResponseMeta = { idempotentReplayed: false };
  try {
    // The input boundary (src/server/http/input-boundary.ts) has already refused other content types and bodies over 64 KiB.
    const count = procedureCount(new URL(req.url));
    if (count > MAX_BATCH_SIZE) {
      throw new AppError("VALIDATION_FAILED", `A batch may hold at most ${MAX_BATCH_SIZE} procedures.`);
    }
    const authorization = await sessionAuthorization({ headers: req.headers, cookies: cookiesOf(req) });
    // Authenticated calls meet the per-account limit in apiProcedure; without a session, the client's address pays.
    if (!authorization) await enforceRateLimit([`trpc:ip:${ip}`], POLICIES.publicIp);
    return await fetchRequestHandler({
      endpoint: ENDPOINT,
      req,
      router: appRouter,
      maxBatchSize: MAX_BATCH_SIZE,
      // One key names one request: a batch of several procedures cannot share it, so it applies to a lone mutation only.
      createContext: () => ({
        requestId,
        ip,
        authorization,
        idempotencyKey: count === 1 && req.method === "POST" ? req.headers.get("idempotency-key") : null,
        responseMeta,
      }),
      onError({ error, path }) {
        // Only our own failures are worth an error line; a refused or unauthenticated call is ordinary traffic.
        const mapped = toErrorResponse(error);
        const entry = { path, requestId, code: mapped.body.error.code, status: mapped.status };
        if (mapped.unexpected) logger().error({ ...entry, err: error.cause ?? error }, "dashboard procedure failed");
        else if (mapped.status >= 500) logger().warn(entry, "dashboard procedure unavailable");
        else logger().info(entry, "dashboard procedure refused");
      },
      responseMeta({ errors }) {
        // tRPC leaves the type unset on errors it answers before any procedure (a malformed batch).
        const headers = new Headers({
          ...JSON_HEADERS,
          [REQUEST_ID_HEADER]: requestId,
          ...(responseMeta.idempotentReplayed && { [IDEMPOTENT_REPLAYED_HEADER]: "true" }),
        });
        // docs/decisions.md §3: a 429 (or 503) says when to come back, on this transport as on REST; in a batch, the longest wait.
        const waits = errors.map((e) => Number(toErrorResponse(e).headers["retry-after"] ?? 0)).filter((s) => s > 0);
        if (waits.length) headers.set("retry-after", String(Math.max(...waits)));
        return { headers };
      },
    });
  } catch (err) {
    return errorResponse(err, req, requestId);
  }
}

export { handler as GET, handler as POST };
