import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError } from "../errors/app-error";
import { notReadyMessage, readiness } from "./readiness";
import { JSON_HEADERS } from "../http/body";
import { writeErrorResponse } from "../http/error-response";
import { REQUEST_ID_HEADER } from "../http/request-id";

/** How long a client is told to wait while this instance is not ready. */
const RETRY_AFTER_SECONDS = 5;

/** True for the paths the custom server answers itself, whatever the database's state. */
export function isReadinessRequest(req: IncomingMessage): boolean {
  return (
    (req.method === "GET" || req.method === "HEAD") &&
    (req.url === "/api/ready" || req.url?.startsWith("/api/ready?") === true)
  );
}

/**
 * /api/ready, answered by the custom server (not Next.js), so it says the same
 * during a degraded start: 200 `{ status: "ready", checks, journal }`, or 503
 * with the error envelope plus the same `checks` and `journal`, each check
 * "ok" or what is wrong.
 */
export async function serveReadiness(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
  const r = await readiness();
  const body = r.ready
    ? { status: "ready", checks: r.checks, journal: r.journal }
    : {
        error: { code: "SERVICE_UNAVAILABLE", message: notReadyMessage(r) },
        status: "not-ready",
        checks: r.checks,
        journal: r.journal,
      };
  const headers: Record<string, string> = { ...JSON_HEADERS, [REQUEST_ID_HEADER]: requestId };
  if (!r.ready) headers["retry-after"] = String(RETRY_AFTER_SECONDS);
  res.writeHead(r.ready ? 200 : 503, headers);
  res.end(req.method === "HEAD" ? undefined : JSON.stringify(body));
}

const DOWN_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Routekit is starting</title></head>
<body><h1>Routekit is temporarily unavailable</h1><p>The service cannot reach its database yet. Please try again in a few moments.</p></body></html>`;

/**
 * Everything but the engine and readiness while the database has not been
 * reached since start (a degraded start): liveness says the process answers,
 * the API says 503 "try again", pages say the same in a plain page.
 */
export function serveWhileDatabaseDown(req: IncomingMessage, res: ServerResponse, requestId: string): void {
  const pathOnly = (req.url ?? "/").split("?")[0]!;
  if (pathOnly === "/api/health" && (req.method === "GET" || req.method === "HEAD")) {
    res.writeHead(200, { ...JSON_HEADERS, [REQUEST_ID_HEADER]: requestId });
    res.end(req.method === "HEAD" ? undefined : JSON.stringify({ status: "ok" }));
    return;
  }
  if (pathOnly.startsWith("/api/") || pathOnly === "/api") {
    const err = new AppError("SERVICE_UNAVAILABLE", "The database is not reachable yet; try again shortly.", {
      retryAfter: RETRY_AFTER_SECONDS,
    });
    writeErrorResponse(err, req, res, requestId);
    return;
  }
  res.writeHead(503, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "retry-after": String(RETRY_AFTER_SECONDS),
    [REQUEST_ID_HEADER]: requestId,
  });
  res.end(req.method === "HEAD" ? undefined : DOWN_PAGE);
}
