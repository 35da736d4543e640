import type { ServerResponse } from "node:http";
import { toErrorResponse, type MappedError } from "../errors/to-error-response";
import { logger } from "../logger";
import { JSON_HEADERS, jsonResponse } from "./body";
import { REQUEST_ID_HEADER } from "./request-id";

/** Keeps secrets out of logs: the engine's routing token and billing tokens are in their paths. */
export function loggablePath(url: string | undefined): string {
  const pathOnly = (url ?? "/").split("?")[0] ?? "/";
  return pathOnly
    .replace(/(\/api\/engine\/voice\/)[^/]+/, "$1[token]")
    .replace(/(\/billing\/[a-z]+\/)[^/]+/, "$1[token]");
}

function mapAndLog(
  err: unknown,
  requestId: string,
  method: string | undefined,
  url: string | undefined,
): { mapped: MappedError; headers: Record<string, string> } {
  const mapped = toErrorResponse(err);
  if (mapped.unexpected) logger().error({ err, requestId, method, path: loggablePath(url) }, "request failed");
  // The rest of an oversized body stays unread, so this connection cannot carry another request.
  const close: Record<string, string> = mapped.status === 413 ? { connection: "close" } : {};
  return { mapped, headers: { ...mapped.headers, ...close, [REQUEST_ID_HEADER]: requestId } };
}

/** Anything thrown while serving a request → the envelope, logged when it was not ours to expect. */
export function errorResponse(err: unknown, req: Request, requestId: string): Response {
  const { mapped, headers } = mapAndLog(err, requestId, req.method, new URL(req.url).pathname);
  return jsonResponse(mapped.body, mapped.status, headers);
}

/** The same envelope for a route served straight from node:http. */
export function writeErrorResponse(
  err: unknown,
  req: { method?: string; url?: string },
  res: ServerResponse,
  requestId: string,
): void {
  const { mapped, headers } = mapAndLog(err, requestId, req.method, req.url);
  const body = JSON.stringify(mapped.body);
  // With its length, the answer leaves in one write, not chunked.
  res.writeHead(mapped.status, { ...JSON_HEADERS, ...headers, "content-length": String(Buffer.byteLength(body)) });
  res.end(body);
}
