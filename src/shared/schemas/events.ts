import { z } from "zod";
import { ZTimestamp } from "./common";
import { END_REASONS, ERROR_CODES, outcomeList } from "../call-outcomes";
import { TERMINAL_CALL_STATUSES, ZCallDirection, ZCallEndReason, ZTakenOverBy } from "./enums";
import { ZCostBreakdown } from "./usage";
import { ALERT_DESCRIPTIONS, ALERT_TYPES, ZAlertEventEnvelope, type AlertType } from "./alerts";
import {
  boundedInt,
  boundedRecord,
  boundedString,
  callMinutesInt,
  callSecondsInt,
  METADATA_MAX_BYTES,
  outputCode,
  outputId,
  outputMessage,
  outputUrl,
  TRANSFER_TARGET_MAX_CHARS,
  TWILIO_SID_CHARS,
  twilioField,
} from "./bounds";

/** docs/decisions.md §8: the three event types of every call, spelled once (the ones a test event can sample). */
export const EVENT_TYPES = ["call.started", "call.ended", "call.error"] as const;
/** docs/decisions.md §13: the events of live-call commands (transfers and recordings). */
export const TRANSFER_EVENT_TYPES = ["call.transferred", "call.transfer_failed"] as const;
export const RECORDING_EVENT_TYPES = ["recording.completed", "recording.failed"] as const;
const CONTROL_EVENT_TYPES = [...TRANSFER_EVENT_TYPES, ...RECORDING_EVENT_TYPES] as const;
/** Twilio's DialCallStatus: a final call status, or `answered`. */
export const DIAL_CALL_STATUSES = [...TERMINAL_CALL_STATUSES, "answered"] as const;
/** docs/decisions.md §15: a call's progress, sent only to account endpoints that subscribe to them (never to a number's URL). */
export const PROGRESS_EVENT_TYPES = ["call.ringing", "call.answered"] as const;
/** docs/decisions.md §17: an account's month crossed one of its usage thresholds. */
export const USAGE_EVENT_TYPES = ["usage.threshold_reached"] as const;
export const ALL_EVENT_TYPES = [
  ...EVENT_TYPES,
  ...PROGRESS_EVENT_TYPES,
  ...CONTROL_EVENT_TYPES,
  ...USAGE_EVENT_TYPES,
  ...ALERT_TYPES,
] as const;
export type EventType = (typeof ALL_EVENT_TYPES)[number];
export type ProgressEventType = (typeof PROGRESS_EVENT_TYPES)[number];
/**
 * What an account endpoint may subscribe to (docs/decisions.md §15): every type but call.started, which is
 * sent while Twilio waits and whose answer decides the call, so it goes to the number's URL only.
 */
export const ENDPOINT_EVENT_TYPES = ALL_EVENT_TYPES.filter(
  (t): t is Exclude<EventType, "call.started"> => t !== "call.started",
);
export type EndpointEventType = (typeof ENDPOINT_EVENT_TYPES)[number];
/** An endpoint's filter entry that matches every type it may receive. */
export const ALL_EVENTS = "*";
export const ZEventType = z
  .enum(ALL_EVENT_TYPES)
  .describe(
    "call.started: a call is answered and waits for your answer; call.ended: it ended; call.error: it failed, was rejected or fell back; call.ringing / call.answered: Twilio reported the call ringing or answered (account endpoints only); call.transferred / call.transfer_failed: how a transfer's dial ended; recording.completed / recording.failed: a recording's outcome; usage.threshold_reached: the month's usage cost reached a threshold of the budget; alert.*: the alerts of docs/decisions.md §16 (account endpoints only)",
  );
/**
 * Which of a number's (or an outbound call's) URLs receives each event type. A live call's transfer and
 * recording events go where its end goes: they are part of how the call went, and onCallEndUrl is the one
 * URL every number and call has.
 */
export const EVENT_URL_FIELD = {
  "call.started": "onCallStartUrl",
  "call.ended": "onCallEndUrl",
  "call.error": "onErrorUrl",
  "call.transferred": "onCallEndUrl",
  "call.transfer_failed": "onCallEndUrl",
  "recording.completed": "onCallEndUrl",
  "recording.failed": "onCallEndUrl",
  // Account-wide, but a number's URL receives it as well: where the crossing call's end went (docs/decisions.md §17).
  "usage.threshold_reached": "onCallEndUrl",
} as const satisfies Record<Exclude<EventType, ProgressEventType | AlertType>, string>;

const envelopeHead = {
  id: outputId().describe("evt_…; the webhook-id header; the same on every retry"),
  createdAt: ZTimestamp.describe("When the event happened"),
};

const ZTestFlag = z
  .boolean()
  .optional()
  .describe(
    "true only on sample events from POST /api/webhook-deliveries/test and on the events of a simulated call (POST /api/phone-numbers/{id}/simulate-call); absent on events about real calls",
  );

/** docs/decisions.md §13, §22: how a transfer's `<Dial>` ended. */
/** docs/decisions.md §23: how a shadow's or a replay's call.started is marked, in both call event data shapes. */
const callStartedMarks = {
  shadow: z
    .boolean()
    .optional()
    .describe(
      "call.started only, true on the copy sent to the number's shadow backend (docs/decisions.md §23): its own webhook-id, the same secret; its answer is compared with the primary's and never used. Absent otherwise",
    ),
  replay: z
    .boolean()
    .optional()
    .describe(
      "call.started only, true when POST /api/calls/{callSid}/replay sent a past call's event again (docs/decisions.md §23): its answer is compared and never used. Absent otherwise",
    ),
  originalEventId: outputId()
    .optional()
    .describe("With `replay`: the webhook-id the call's call.started had when the call happened"),
};

const ZTransferEventData = z
  .object({
    callSid: twilioField().describe("Twilio's SID of the transferred call (CA…)"),
    to: boundedString(TRANSFER_TARGET_MAX_CHARS).describe("Where the call was transferred: E.164 or a sip: URI"),
    // Twilio's vocabulary, not a Routekit call status: a string, so the reference keeps one enum per family.
    dialCallStatus: outputCode().describe(
      "Twilio's DialCallStatus: completed or answered (the transfer connected); busy, no-answer, failed or canceled",
    ),
    dialCallSid: boundedString(TWILIO_SID_CHARS)
      .optional()
      .describe("Twilio's SID of the dialled leg, when Twilio sent one"),
    dialCallDurationSeconds: callSecondsInt()
      .optional()
      .describe("How long the transferred conversation lasted (Twilio's DialCallDuration)"),
    phoneNumberId: outputId().nullable().optional().describe("The call's number id"),
    test: ZTestFlag,
  })
  .describe("The transfer");

const ZTransferEventEnvelope = z.object({
  ...envelopeHead,
  type: z
    .enum(TRANSFER_EVENT_TYPES)
    .describe("call.transferred: the transfer connected; call.transfer_failed: it did not, and onFailure took over"),
  data: ZTransferEventData,
});

/** docs/decisions.md §13, §22: a recording's outcome. */
const ZRecordingEventData = z
  .object({
    callSid: twilioField().describe("Twilio's SID of the recorded call (CA…)"),
    recordingSid: boundedString(TWILIO_SID_CHARS).describe("Twilio's recording SID (RE…)"),
    url: outputUrl()
      .nullable()
      .describe("recording.completed: Twilio's RecordingUrl (fetch it with your Twilio credentials); null otherwise"),
    durationSeconds: callSecondsInt().nullable().describe("The recording's length in seconds; null when none"),
    channels: z.union([z.literal(1), z.literal(2)]).describe("1 (mono) or 2 (dual: one channel per party)"),
    status: outputCode().optional().describe("recording.failed: Twilio's RecordingStatus (absent or failed)"),
    errorCode: outputCode().optional().describe("recording.failed: Twilio's ErrorCode, when it sent one"),
    phoneNumberId: outputId().nullable().optional().describe("The call's number id"),
    test: ZTestFlag,
  })
  .describe("The recording");

const ZRecordingEventEnvelope = z.object({
  ...envelopeHead,
  type: z
    .enum(RECORDING_EVENT_TYPES)
    .describe("recording.completed: the recording is ready; recording.failed: Twilio reported it absent or failed"),
  data: ZRecordingEventData,
});

/** docs/decisions.md §17, §22: a usage threshold crossed. */
const ZUsageThresholdEventData = z
  .object({
    threshold: boundedInt(1, 100).describe("The percent of monthlyBudget reached (one of your alertThresholds)"),
    monthlyBudget: z.number().describe("The budget in USD when it was crossed"),
    spent: z.number().describe("The month's usage cost in USD, base excluded, once the crossing call was counted"),
    month: z
      .string()
      .regex(/^\d{4}-\d{2}$/)
      .max(7)
      .describe('The UTC month, "2026-11"; thresholds start again each month'),
    callSid: twilioField().describe("The call whose cost crossed the threshold (CA…)"),
    phoneNumberId: outputId().nullable().describe("That call's number id"),
    test: ZTestFlag,
  })
  .describe("The threshold crossed");

const ZUsageThresholdEventEnvelope = z.object({
  ...envelopeHead,
  type: z
    .enum(USAGE_EVENT_TYPES)
    .describe(
      "usage.threshold_reached: the month's usage cost reached a threshold of your monthlyBudget; sent once per threshold per month",
    ),
  data: ZUsageThresholdEventData,
});

/** docs/decisions.md §8: the events we send, as documented in the OpenAPI `webhooks`. */
export const ZEventEnvelope = z.object({
  ...envelopeHead,
  type: z
    .enum(EVENT_TYPES)
    .describe(
      "call.started: a call is answered and waits for your answer; call.ended: it ended; call.error: it failed, was rejected or fell back",
    ),
  data: z
    .object({
      callSid: twilioField().describe("Twilio's call SID (CA…)"),
      direction: ZCallDirection,
      from: twilioField().describe("The caller (Twilio's From), E.164"),
      to: twilioField().describe("The called number (Twilio's To), E.164"),
      phoneNumberId: outputId()
        .nullable()
        .describe("Your number's id; null for a call to a number not registered here"),
      metadata: boundedRecord(METADATA_MAX_BYTES)
        .optional()
        .describe("Outbound calls: the metadata given to POST /api/outbound"),
      status: outputCode()
        .optional()
        .describe(
          "Twilio's CallStatus; on call.ended `unknown` when the final status never came (endReason no-final-status)",
        ),
      durationSeconds: callSecondsInt()
        .optional()
        .describe("call.ended of a completed call: Twilio's CallDuration in seconds"),
      billedMinutes: callMinutesInt().optional().describe("call.ended of a completed call: ceil(durationSeconds / 60)"),
      costBreakdown: ZCostBreakdown.optional().describe("call.ended of a completed call: as on the usage record"),
      answeredBy: twilioField().optional().describe("With machine detection: human, machine_start, …"),
      error: z
        .object({
          code: outputCode().describe(
            `Why, as a code (docs/call-outcomes.md):\n\n${outcomeList(Object.entries(ERROR_CODES))}`,
          ),
          message: outputMessage().describe("Why, in a sentence"),
        })
        .optional()
        .describe("call.error only: what went wrong"),
      fallback: z
        .object({
          reason: outputCode().describe("The call.error code of why onCallStartUrl's answer could not be used"),
          primaryUrl: outputUrl().describe("The onCallStartUrl that failed"),
        })
        .optional()
        .describe(
          "call.started sent to your fallback URL only: the same event (same webhook-id) as the primary got, with why it falls back",
        ),
      takenOverBy: ZTakenOverBy.optional().describe(
        "call.error after onCallStartUrl failed: what decided the call instead",
      ),
      endReason: ZCallEndReason.optional().describe(
        `call.ended only: why the call ended (docs/decisions.md §14, docs/call-outcomes.md):\n\n${outcomeList(Object.entries(END_REASONS))}`,
      ),
      sipResponseCode: boundedInt(100, 699)
        .nullable()
        .optional()
        .describe(
          "call.ended only: the carrier's SIP response code from Twilio's final status callback (SipResponseCode); null when Twilio sent none",
        ),
      errorCode: boundedInt(1, 99_999)
        .nullable()
        .optional()
        .describe(
          "call.ended only: Twilio's error code from its final status callback (ErrorCode); null when Twilio sent none. Not error.code",
        ),
      test: z
        .boolean()
        .optional()
        .describe(
          "true only on sample events from POST /api/webhook-deliveries/test and on the events of a simulated call (POST /api/phone-numbers/{id}/simulate-call); absent on events about real calls",
        ),
      ...callStartedMarks,
    })
    .describe("The call the event is about"),
});

/** docs/decisions.md §15: a call's progress as Twilio's status callbacks report it. */
const ZProgressEventEnvelope = z.object({
  ...envelopeHead,
  type: z
    .enum(PROGRESS_EVENT_TYPES)
    .describe(
      "call.ringing: Twilio reported the call ringing; call.answered: Twilio reported it answered (in progress)",
    ),
  data: z
    .object({
      callSid: twilioField().describe("Twilio's call SID (CA…)"),
      direction: ZCallDirection,
      from: twilioField().describe("The caller (Twilio's From), E.164"),
      to: twilioField().describe("The called number (Twilio's To), E.164"),
      phoneNumberId: outputId()
        .nullable()
        .describe("Your number's id; null for a call to a number not registered here"),
      metadata: boundedRecord(METADATA_MAX_BYTES)
        .optional()
        .describe("Outbound calls: the metadata given to POST /api/outbound"),
      status: outputCode().describe("Twilio's CallStatus as it was reported: ringing, or in-progress / answered"),
      answeredBy: twilioField().optional().describe("With machine detection: human, machine_start, …"),
      test: z
        .boolean()
        .optional()
        .describe(
          "true only on sample events from POST /api/webhook-deliveries/test and on the events of a simulated call (POST /api/phone-numbers/{id}/simulate-call); absent on events about real calls",
        ),
      ...callStartedMarks,
    })
    .describe("The call the event is about"),
});

type Envelope =
  | typeof ZEventEnvelope
  | typeof ZProgressEventEnvelope
  | typeof ZTransferEventEnvelope
  | typeof ZRecordingEventEnvelope
  | typeof ZUsageThresholdEventEnvelope
  | typeof ZAlertEventEnvelope;

/**
 * docs/decisions.md §15: the event catalogue, spelled once. GET /api/event-types and the OpenAPI `webhooks`
 * are both generated from it (and from the envelopes above), so the published schemas cannot drift apart.
 */
export const EVENT_CATALOGUE = [
  {
    type: "call.started",
    description:
      "A call was answered; your answer (TwiML, {twiml} or {actions}) decides it. Sent while Twilio waits, to the number's onCallStartUrl only",
    envelope: ZEventEnvelope,
  },
  {
    type: "call.ringing",
    description: "Twilio reported the call ringing (status callback). Account endpoints that subscribe to it only",
    envelope: ZProgressEventEnvelope,
  },
  {
    type: "call.answered",
    description:
      "Twilio reported the call answered (in progress; status callback). Account endpoints that subscribe to it only",
    envelope: ZProgressEventEnvelope,
  },
  {
    type: "call.ended",
    description: "A call ended; completed calls carry duration and cost",
    envelope: ZEventEnvelope,
  },
  {
    type: "call.error",
    description: "A call failed, was rejected, or your start answer was unusable",
    envelope: ZEventEnvelope,
  },
  {
    type: "call.transferred",
    description: "A transfer (POST /api/calls/{callSid}/transfer) connected; sent to the call's onCallEndUrl",
    envelope: ZTransferEventEnvelope,
  },
  {
    type: "call.transfer_failed",
    description:
      "A transfer did not connect (busy, no answer, failed, canceled); the onFailure actions kept the caller on the line. Sent to the call's onCallEndUrl",
    envelope: ZTransferEventEnvelope,
  },
  {
    type: "recording.completed",
    description:
      "A recording (POST /api/calls/{callSid}/recording) is ready at Twilio; sent to the call's onCallEndUrl",
    envelope: ZRecordingEventEnvelope,
  },
  {
    type: "recording.failed",
    description: "A recording came to nothing (Twilio's absent or failed); sent to the call's onCallEndUrl",
    envelope: ZRecordingEventEnvelope,
  },
  {
    type: "usage.threshold_reached",
    description:
      "The month's usage cost reached one of your alertThresholds of monthlyBudget (docs/decisions.md §17); once per threshold per month, with an email. Sent to the onCallEndUrl of the call that crossed it and to subscribed endpoints",
    envelope: ZUsageThresholdEventEnvelope,
  },
  // docs/decisions.md §16: account endpoints only (a number's URLs never receive alerts), and by email.
  ...ALERT_TYPES.map((type) => ({
    type,
    description: `${ALERT_DESCRIPTIONS[type]}. Account endpoints that subscribe to it, and by email unless switched off`,
    envelope: ZAlertEventEnvelope,
  })),
] as const satisfies readonly { type: EventType; description: string; envelope: Envelope }[];

/** One type's envelope with `type` narrowed to it: the schema GET /api/event-types publishes for that type. */
export function eventSchemaOf(type: EventType): z.ZodType {
  const entry = EVENT_CATALOGUE.find((e) => e.type === type);
  if (!entry) throw new Error(`no catalogue entry for ${type}`);
  return (entry.envelope as z.ZodObject).extend({ type: z.literal(type).describe(entry.description) });
}

/** `call.started` → `CallStartedEvent`: each type's schema's name in the OpenAPI document (docs/api.md "Named schemas"). */
const eventSchemaName = (type: EventType) =>
  `${type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("")}Event`;

/** Each type's schema, named: the OpenAPI `webhooks` refer to these (GET /api/event-types publishes them unnamed). */
export const NAMED_EVENT_SCHEMAS = Object.fromEntries(
  ALL_EVENT_TYPES.map((t) => [t, eventSchemaOf(t).meta({ id: eventSchemaName(t) })]),
) as Record<EventType, z.ZodType>;
