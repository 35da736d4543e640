/**
 * docs/decisions.md §23: a number's shadow backend, its report, and the replay of a past call. The
 * shapes the API, the dashboard and the engine share.
 */
import { z } from "zod";
import { zCallbackUrl, type CallbackUrlPolicyOptions } from "../url-policy";
import { ZId, ZQueryTime, ZTimestamp } from "./common";
import {
  countInt,
  latencyMsInt,
  outputCode,
  outputId,
  outputMessage,
  outputUrl,
  STORED_TWIML_MAX_CHARS,
  TWILIO_SID_CHARS,
} from "./bounds";

/** The report lists at most this many differing or failed calls (docs/decisions.md §23). */
export const SHADOW_REPORT_CALLS_MAX = 100;

export const SHADOW_OUTCOMES = ["same", "different", "failed"] as const;
export type ShadowOutcome = (typeof SHADOW_OUTCOMES)[number];
const ZShadowOutcome = z
  .enum(SHADOW_OUTCOMES)
  .describe(
    "same: the two answers give Twilio the same TwiML once normalised (whitespace, attribute order, Routekit's own additions); different: they do not; failed: the shadow's (or replayed) answer could not be used (timeout, status, invalid document)",
  );

/** How a shadow is stored on the number (PhoneNumber.shadow) and shown: sampleRate and until filled in. */
export type StoredShadow = { onCallStartUrl: string; sampleRate: number; until: string | null; setAt: string };

export const ZShadow = z
  .object({
    onCallStartUrl: outputUrl().describe("Where each mirrored call's call.started is sent (with `data.shadow = true`)"),
    sampleRate: z.number().min(0).max(1).describe("The share of inbound calls mirrored, 0 to 1"),
    until: ZTimestamp.nullable().describe("When mirroring stops by itself; null: until the shadow is removed"),
    setAt: ZTimestamp.describe("When this shadow was set: the report counts from here unless `since` says otherwise"),
  })
  .describe("docs/decisions.md §23: the number's shadow backend, or null when it has none");

/** The `shadow` field of PATCH /api/phone-numbers/{id}: the URL under the callback URL policy (§6). */
export function zShadowInput(policy: () => CallbackUrlPolicyOptions) {
  return z
    .object({
      onCallStartUrl: zCallbackUrl(policy).describe(
        "The backend to try: each mirrored call's call.started goes here too, its answer compared and never used",
      ),
      sampleRate: z
        .number()
        .min(0, { message: "must be between 0 and 1" })
        .max(1, { message: "must be between 0 and 1" })
        .optional()
        .describe("The share of inbound calls to mirror, 0 to 1; default 1 (every call)"),
      until: ZTimestamp.nullable()
        .optional()
        .describe("When mirroring stops by itself (a time past mirrors nothing); omitted or null: no end"),
    })
    .nullable()
    .optional()
    .describe(
      "docs/decisions.md §23: a shadow backend that gets a copy of each inbound call's call.started, whose answer is compared with the primary's and never used; null removes it; omitted: unchanged",
    );
}

/** Fills in a shadow's defaults when it is set. */
export function storedShadowOf(
  input: { onCallStartUrl: string; sampleRate?: number; until?: string | null },
  at: Date,
): StoredShadow {
  return {
    onCallStartUrl: input.onCallStartUrl,
    sampleRate: input.sampleRate ?? 1,
    until: input.until ? new Date(input.until).toISOString() : null,
    setAt: at.toISOString(),
  };
}

/** The number's stored shadow as the API shows it; null for none or a value that is not one. */
export function shadowDto(stored: unknown): StoredShadow | null {
  if (!stored || typeof stored !== "object") return null;
  const s = stored as Partial<StoredShadow>;
  if (typeof s.onCallStartUrl !== "string") return null;
  return {
    onCallStartUrl: s.onCallStartUrl,
    sampleRate: typeof s.sampleRate === "number" ? s.sampleRate : 1,
    until: typeof s.until === "string" ? s.until : null,
    setAt: typeof s.setAt === "string" ? s.setAt : new Date(0).toISOString(),
  };
}

const ZLatency = z
  .object({
    p50: latencyMsInt().nullable().describe("Median, in milliseconds; null with no mirrored call"),
    p99: latencyMsInt().nullable().describe("99th percentile, in milliseconds; null with no mirrored call"),
  })
  .describe("Latency of the mirrored calls' answers");

const ZAnswerSide = {
  answer: outputCode().describe(
    "The answer's form (xml, json-twiml, json-actions), or the call.error code of why it could not be used",
  ),
  twiml: z
    .string()
    .max(STORED_TWIML_MAX_CHARS)
    .nullable()
    .describe(
      "The TwiML the answer gives Twilio (its first 16 KiB, as the call log keeps it); null when it could not be used",
    ),
};

export const ZShadowReportInput = z.object({
  id: ZId.describe("The number's id"),
  since: ZQueryTime.optional().describe(
    "Count from this time (at most 30 days back); default: when the shadow was set, or 30 days ago",
  ),
});

const ZShadowCall = z.object({
  callSid: z.string().max(TWILIO_SID_CHARS).describe("The call (Twilio's call SID)"),
  startedAt: ZTimestamp.describe("When its voice request arrived"),
  outcome: ZShadowOutcome,
  primary: z
    .object({
      ...ZAnswerSide,
      latencyMs: latencyMsInt().describe("Milliseconds until the primary's answer"),
    })
    .describe("onCallStartUrl's answer: what the caller got (unless a fallback took over)"),
  shadow: z
    .object({
      ...ZAnswerSide,
      latencyMs: latencyMsInt().describe("Milliseconds until the shadow's answer, or until it was given up"),
      error: outputMessage().optional().describe("Why the shadow's answer could not be used; absent when it could"),
    })
    .describe("The shadow's answer, never used"),
});

export const ZShadowReportOutput = z.object({
  shadow: ZShadow.nullable().describe(
    "The number's shadow now; null when it has none (the report still counts what was mirrored)",
  ),
  report: z
    .object({
      since: ZTimestamp.describe("The report counts mirrored calls from here"),
      mirrored: countInt().describe("Calls whose call.started went to the shadow too"),
      skipped: countInt().describe(
        "Calls not mirrored because the account had 10 shadow requests in flight (counted per UTC day: from the day of `since`)",
      ),
      same: countInt().describe("Mirrored calls the shadow answered the same"),
      different: countInt().describe("Mirrored calls the shadow answered differently"),
      failed: countInt().describe("Mirrored calls whose shadow answer could not be used"),
      primaryLatencyMs: ZLatency,
      shadowLatencyMs: ZLatency,
    })
    .describe("The mirrored calls since `since` (kept 30 days)"),
  calls: z
    .array(ZShadowCall)
    .max(SHADOW_REPORT_CALLS_MAX)
    .describe("The last 100 mirrored calls since `since` that were `different` or `failed`, newest first"),
});

const ZReplayInput = z.object({
  callSid: z.string().trim().min(1).max(64).describe("The past inbound call (Twilio's call SID)"),
  onCallStartUrl: z.string().describe("Where to send the call's call.started again"),
});

/** The replay's input with the URL under the server's callback URL policy (§6). */
export function replayInputSchema(policy: () => CallbackUrlPolicyOptions) {
  return ZReplayInput.extend({
    onCallStartUrl: zCallbackUrl(policy).describe(
      "Where to send the call's call.started again (with `data.replay = true`); its answer is compared and never used",
    ),
  });
}

export const ZReplayOutput = z.object({
  replay: z
    .object({
      outcome: ZShadowOutcome,
      original: z.object(ZAnswerSide).describe("How the call was decided when it happened"),
      replayed: z
        .object({
          ...ZAnswerSide,
          latencyMs: latencyMsInt().describe("Milliseconds until the URL's answer, or until it was given up"),
          error: outputMessage().optional().describe("Why the answer could not be used; absent when it could"),
        })
        .describe("The URL's answer now, never used"),
      deliveryId: ZId.describe("The replay's delivery, in GET /api/webhook-deliveries/{id} (kind `replay`)"),
      eventId: outputId().describe("The replay's webhook-id"),
    })
    .describe("docs/decisions.md §23: the replayed call.started and how its answer compares"),
});
