import { callbackClient } from "./http/callback-client";
import type { CallbackResponse } from "./http/callback-http-client";
import { env } from "../env";
import type { EventEnvelope } from "./event-envelope";
import { webhookHeaders } from "./webhook-signature";

/** The largest answer we read from onCallStartUrl (TwiML documents are small). */
export const START_RESPONSE_MAX_BYTES = 64 * 1024;

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
}): Promise<CallbackResponse> {
  const body = opts.body ?? JSON.stringify(opts.event);
  return callbackClient().send({
    url: opts.url,
    headers: webhookHeaders({ id: opts.event.id, body, secrets: opts.secrets }),
    body,
    timeoutMs: env().callbackStartTimeoutMs,
    maxResponseBytes: START_RESPONSE_MAX_BYTES,
  });
}
