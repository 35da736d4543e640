/**
 * docs/decisions.md §23: `call.started` to a backend whose answer is only compared, never used: a number's
 * shadow, or a replay's URL. Sent once through the one outbound client (the URL policy of §6 checked again
 * on the resolved address), with the primary's timeout and no retry; its answer checked exactly as the
 * primary's is (start-answer.ts interpretStartAnswer).
 */
import { CallbackRequestError } from "../../webhooks/http/callback-http-client";
import type { EventEnvelope } from "../../webhooks/event-envelope";
import { postCallStarted } from "../../webhooks/post-call-started";
import { interpretStartAnswer } from "../answers/start-answer";

/** What the second backend answered, and the attempt as the delivery log keeps it. */
export type SecondAnswer = {
  /** The answer's form, or the code of why it could not be used (START_CALLBACK_TIMEOUT, …_STATUS, …_INVALID, …). */
  answer: string;
  twiml: string | null;
  latencyMs: number;
  error?: string;
  /** When the POST began. */
  at: Date;
  statusCode: number | null;
  responseBody: string | null;
};

export async function askSecondBackend(opts: {
  url: string;
  event: EventEnvelope;
  body: string;
  secrets: string[];
  timeoutMs: number;
}): Promise<SecondAnswer> {
  const at = new Date();
  const t0 = performance.now();
  try {
    const res = await postCallStarted({
      url: opts.url,
      event: opts.event,
      body: opts.body,
      secrets: opts.secrets,
      timeoutMs: Math.max(1, Math.floor(opts.timeoutMs)),
    });
    const latencyMs = Math.round(performance.now() - t0);
    const answer = interpretStartAnswer({
      status: res.status,
      contentType: res.headers["content-type"] ?? null,
      body: res.body,
    });
    const base = { at, latencyMs, statusCode: res.status, responseBody: res.body };
    return answer.ok
      ? { ...base, answer: answer.form, twiml: answer.twiml }
      : { ...base, answer: answer.code, twiml: null, error: answer.message };
  } catch (err) {
    const latencyMs = Math.round(performance.now() - t0);
    const timeout = err instanceof CallbackRequestError && err.kind === "timeout";
    return {
      at,
      latencyMs,
      statusCode: null,
      responseBody: null,
      answer: timeout ? "START_CALLBACK_TIMEOUT" : "START_CALLBACK_UNREACHABLE",
      twiml: null,
      error:
        err instanceof CallbackRequestError ? `onCallStartUrl: ${err.message}` : "onCallStartUrl could not be reached.",
    };
  }
}
