import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { cookiesOf, sessionAuthorization } from "@/server/auth/dashboard-session";
import { AppError } from "@/server/errors/app-error";
import { errorResponse } from "@/server/http/error-response";
import { CLIENT_IP_HEADER } from "@/server/http/client-ip";
import { REQUEST_ID_HEADER, requestIdFrom } from "@/server/http/request-id";
import { logger } from "@/server/logger";
import { appRouter } from "@/server/trpc/root";

/**
 * The dashboard's transport: the same procedures as the REST API, over tRPC,
 * authenticated by the session cookie (never by an Authorization header, so a
 * stolen API key cannot drive it and the dashboard cannot be driven without a session).
 */
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

function handler(req: Request): Promise<Response> {
  const requestId = requestIdFrom(req.headers.get(REQUEST_ID_HEADER));
  // The session cookie is SameSite=Lax; requiring JSON for writes also rules out cross-site form posts.
  if (req.method === "POST" && !(req.headers.get("content-type") ?? "").startsWith("application/json")) {
    return Promise.resolve(errorResponse(new AppError("VALIDATION_FAILED", "Send the request body as application/json."), req, requestId));
  }
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    async createContext() {
      return {
        requestId,
        ip: req.headers.get(CLIENT_IP_HEADER) ?? "unknown",
        authorization: await sessionAuthorization({ headers: req.headers, cookies: cookiesOf(req) }),
      };
    },
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") logger().error({ err: error.cause ?? error, path, requestId }, "dashboard procedure failed");
    },
    responseMeta() {
      return { headers: new Headers({ [REQUEST_ID_HEADER]: requestId, "cache-control": "no-store" }) };
    },
  });
}

export { handler as GET, handler as POST };
