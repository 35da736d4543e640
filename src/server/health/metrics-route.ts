import type { IncomingMessage, ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { isLocalHostHeader, isLoopbackSocketAddress } from "../email/outbox-access";
import { env } from "../env";
import { REQUEST_ID_HEADER } from "../http/request-id";
import { writeErrorResponse } from "../http/error-response";
import { AppError } from "../errors/app-error";
import { scrapeMetrics } from "./scrape";

export function isMetricsRequest(req: IncomingMessage): boolean {
  return (
    (req.method === "GET" || req.method === "HEAD") &&
    (req.url === "/metrics" || req.url?.startsWith("/metrics?") === true)
  );
}

function sameSecret(given: string, want: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(want);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Who may scrape: with METRICS_TOKEN set, a request bearing it
 * (`Authorization: Bearer …`); without it, only a connection from this
 * machine (a loopback socket and a local `Host`, never X-Forwarded-For).
 * Anyone else gets 404, as for a path that does not exist.
 */
function metricsVisibleTo(req: IncomingMessage): boolean {
  const token = env().metricsToken;
  if (token) {
    const header = req.headers.authorization ?? "";
    return header.startsWith("Bearer ") && sameSecret(header.slice(7), token);
  }
  return isLoopbackSocketAddress(req.socket.remoteAddress) && isLocalHostHeader(req.headers.host);
}

/** /metrics in Prometheus' text format, served by the custom server (docs/operations.md, "Metrics"). */
export async function serveMetrics(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
  if (!metricsVisibleTo(req)) {
    writeErrorResponse(new AppError("NOT_FOUND", "Not found."), req, res, requestId);
    return;
  }
  const { contentType, body } = await scrapeMetrics();
  res.writeHead(200, { "content-type": contentType, "cache-control": "no-store", [REQUEST_ID_HEADER]: requestId });
  res.end(req.method === "HEAD" ? undefined : body);
}
