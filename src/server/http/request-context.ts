import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { CLIENT_IP_HEADER, SOCKET_IP_HEADER, clientIpOf } from "./client-ip";
import { REQUEST_ID_HEADER, requestIdFrom } from "./request-id";

/**
 * A request's id and client address, derived once. The custom server stamps
 * them on the request's headers (overwriting what the client sent), because
 * headers are what reaches the Next.js bundles; every handler after it reads
 * them with `requestContextOf` and never derives them again.
 */
export type RequestContext = { requestId: string; ip: string };

/** The custom server, first thing for every request. */
export function stampRequestContext(req: IncomingMessage, trustProxy: boolean): RequestContext {
  const context = { requestId: requestIdFrom(req.headers[REQUEST_ID_HEADER]), ip: clientIpOf(req, trustProxy) };
  req.headers[REQUEST_ID_HEADER] = context.requestId;
  req.headers[CLIENT_IP_HEADER] = context.ip;
  req.headers[SOCKET_IP_HEADER] = req.socket.remoteAddress ?? "unknown";
  return context;
}

type HeaderSource = Headers | IncomingHttpHeaders | Record<string, string | string[] | undefined>;

function headerOf(headers: HeaderSource, name: string): string | undefined {
  const value = headers instanceof Headers ? headers.get(name) : headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? undefined;
}

/** What the custom server stamped. A request that bypassed it (none does in this service) still gets a sane id. */
export function requestContextOf(headers: HeaderSource): RequestContext {
  const stamped = headerOf(headers, REQUEST_ID_HEADER);
  return { requestId: stamped ?? requestIdFrom(undefined), ip: headerOf(headers, CLIENT_IP_HEADER) ?? "unknown" };
}

export { REQUEST_ID_HEADER };
