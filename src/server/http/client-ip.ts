import type { IncomingMessage } from "node:http";

/** Set by the custom server on every request (overwriting any the client sent). */
export const CLIENT_IP_HEADER = "x-routekit-client-ip";

/**
 * The socket's own peer address, set beside CLIENT_IP_HEADER the same way:
 * for the few checks that must never believe X-Forwarded-For (the outbox).
 */
export const SOCKET_IP_HEADER = "x-routekit-socket-ip";

/**
 * With TRUST_PROXY the load balancer appends the real client to
 * X-Forwarded-For, so the last entry is the one we can believe; without it the
 * header is the client's own words and only the socket counts.
 */
export function clientIpOf(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers["x-forwarded-for"];
    const value = Array.isArray(forwarded) ? forwarded.join(",") : forwarded;
    const last = value
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .pop();
    if (last) return last;
  }
  return req.socket.remoteAddress ?? "unknown";
}
