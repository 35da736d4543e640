import { toErrorResponse } from "../errors/to-error-response";
import { logger } from "../logger";
import { jsonResponse } from "./body";
import { REQUEST_ID_HEADER } from "./request-id";

/** Anything thrown while serving a request → the envelope, logged when it was not ours to expect. */
export function errorResponse(err: unknown, req: Request, requestId: string): Response {
  const mapped = toErrorResponse(err);
  if (mapped.unexpected) logger().error({ err, requestId, method: req.method, path: new URL(req.url).pathname.replace(/(\/api\/engine\/voice\/)[^/]+/, "$1[token]") }, "request failed");
  // The rest of an oversized body stays unread, so this connection cannot carry another request.
  const close: Record<string, string> = mapped.status === 413 ? { connection: "close" } : {};
  return jsonResponse(mapped.body, mapped.status, { ...mapped.headers, ...close, [REQUEST_ID_HEADER]: requestId });
}
