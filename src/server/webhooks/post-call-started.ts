import { callbackClient } from "./http/callback-client";
import type { CallbackResponse } from "./http/callback-http-client";
import { env } from "../env";
import type { EventEnvelope } from "./event-envelope";
import { webhookHeaders } from "./webhook-signature";
import { traceHeaders, withSpan } from "../tracing/tracing";

/** The largest answer we read from onCallStartUrl (TwiML documents are small). */
const START_RESPONSE_MAX_BYTES = 64 * 1024;

/**
 * `call.started` is synchronous: the engine waits for the customer's answer to
 * decide the call. Same envelope, signing and outbound client as the queued
 * events, with the CALLBACK_START_TIMEOUT_MS budget instead of retries.
 */
export function postCallStarted(opts: {
  url: string;
  event: EventEnvelope;
  secrets: string[];
  /** The event as JSON when the caller made it already (the call log keeps these bytes): made once, not twice. */
  body?: string;
  /** The answer's budget (docs/decisions.md §12); CALLBACK_START_TIMEOUT_MS when not given. */
  timeoutMs?: number;
}): Promise<CallbackResponse> {
  const body = opts.body ?? JSON.stringify(opts.event);
  const send = () =>
    callbackClient().send({
      url: opts.url,
      // Tracing on: the backend's call continues this span's trace (`traceparent`).
      headers: { ...webhookHeaders({ id: opts.event.id, body, secrets: opts.secrets }), ...traceHeaders() },
      body,
      timeoutMs: opts.timeoutMs ?? env().callbackStartTimeoutMs,
      maxResponseBytes: START_RESPONSE_MAX_BYTES,
    });
  return withSpan(
    "call.started POST",
    { kind: "client", attributes: { "http.request.method": "POST", "routekit.event.id": opts.event.id } },
    async (span) => {
      if (!span) return send();
      span.setAttribute("server.address", hostOf(opts.url));
      const res = await send();
      span.setAttribute("http.response.status_code", res.status);
      return res;
    },
  );
}

/** The backend's host for a span (never the path or query, which may carry the customer's own tokens). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}
