import type { IncomingMessage, ServerResponse } from "node:http";
import { CLIENT_IP_HEADER } from "./client-ip";
import { REQUEST_ID_HEADER } from "./request-id";
import { routeLabel } from "./route-label";
import { runInContext, startServerSpan, tracing } from "../tracing/tracing";

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The HTTP server's listener, each request in a server span when tracing is on: an incoming
 * `traceparent` (an API client's, a proxy's, Twilio's should it send one) is continued, and everything
 * the request does (the engine, Next.js, the database) runs in that span's context. Off, the listener
 * itself is returned: not even a wrapper call per request.
 *
 * The span is named by the route template (metrics/route-label.ts), never the path: an engine URL
 * holds an account's routing token. It carries the request's `x-request-id`, which the listener
 * stamps on the request first thing (http/request-context.ts).
 */
export function traceRequests(listener: Listener): Listener {
  if (!tracing()) return listener;
  return (req, res) => {
    const traced = startServerSpan(req.headers, req.method ?? "HTTP", {
      "http.request.method": req.method ?? "OTHER",
    });
    if (!traced) return listener(req, res);
    const { span } = traced;
    res.once("close", () => {
      // The metric's label; the engine's is spelled as a template here, as tracing backends group by http.route.
      const label = routeLabel(req.url, res.statusCode);
      const route = label.startsWith("engine.") ? "/api/engine/voice/{token}" : label;
      span.updateName(`${req.method} ${route}`);
      span.setAttributes({
        "http.route": route,
        "http.response.status_code": res.statusCode,
        "http.request.header.x-request-id": [String(req.headers[REQUEST_ID_HEADER] ?? "")],
        "client.address": String(req.headers[CLIENT_IP_HEADER] ?? ""),
      });
      if (res.statusCode >= 500) span.setStatus({ code: 2 });
      if (!res.writableFinished) span.setAttribute("http.response.aborted", true);
      span.end();
    });
    runInContext(traced.context, () => listener(req, res));
  };
}
