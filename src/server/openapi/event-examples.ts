import type { z } from "zod";
import { ALERT_TYPES, type AlertType } from "../../shared/schemas/alerts";
import type { EVENT_CATALOGUE, EventType } from "../../shared/schemas/events";
import {
  exampleAlert,
  exampleCostBreakdown,
  exampleEventData,
  exampleNumber,
  exampleTime,
} from "../trpc/routers/example-values";

/** One event as we send it: its catalogue entry's envelope, with `type` narrowed to it. */
type EventExample<T extends EventType> = z.output<
  Extract<(typeof EVENT_CATALOGUE)[number], { type: T }>["envelope"]
> & {
  type: T;
};

/**
 * The example body of each event the reference's `webhooks` show, one per type of the catalogue: events
 * are not routes, so they have no spec of their own to carry one. Keyed by type and typed by that
 * type's envelope, so a new event type without an example, or an example that no longer fits its
 * envelope, fails the typecheck.
 */
export const EVENT_EXAMPLES: { [T in EventType]: EventExample<T> } = {
  "call.ringing": {
    id: "evt_r1ng1ng",
    type: "call.ringing",
    createdAt: exampleTime,
    data: { ...exampleEventData, status: "ringing" },
  },
  "call.answered": {
    id: "evt_4nsw3r3d",
    type: "call.answered",
    createdAt: exampleTime,
    data: { ...exampleEventData, status: "in-progress" },
  },
  "call.started": {
    id: "evt_1a2b3c",
    type: "call.started",
    createdAt: exampleTime,
    data: { ...exampleEventData, status: "ringing" },
  },
  "call.ended": {
    id: "evt_3q2Hf8sLk1mNoPqR",
    type: "call.ended",
    createdAt: exampleTime,
    data: {
      ...exampleEventData,
      status: "completed",
      durationSeconds: 61,
      billedMinutes: 2,
      costBreakdown: exampleCostBreakdown,
      endReason: "completed",
      sipResponseCode: 200,
      errorCode: null,
    },
  },
  "call.transferred": {
    id: "evt_4t5r6a",
    type: "call.transferred",
    createdAt: exampleTime,
    data: {
      callSid: "CA0123456789abcdef0123456789abcdef",
      to: "+14155550199",
      dialCallStatus: "completed",
      dialCallSid: "CAfedcba9876543210fedcba9876543210",
      dialCallDurationSeconds: 94,
      phoneNumberId: "cmwra1b2c00012c7d5x8k9m3p",
    },
  },
  "call.transfer_failed": {
    id: "evt_7f8a9i",
    type: "call.transfer_failed",
    createdAt: exampleTime,
    data: {
      callSid: "CA0123456789abcdef0123456789abcdef",
      to: "+14155550199",
      dialCallStatus: "no-answer",
      phoneNumberId: "cmwra1b2c00012c7d5x8k9m3p",
    },
  },
  "recording.completed": {
    id: "evt_r3c0rd",
    type: "recording.completed",
    createdAt: exampleTime,
    data: {
      callSid: "CA0123456789abcdef0123456789abcdef",
      recordingSid: "RE0123456789abcdef0123456789abcdef",
      url: "https://api.twilio.com/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef/Recordings/RE0123456789abcdef0123456789abcdef",
      durationSeconds: 42,
      channels: 2,
      phoneNumberId: "cmwra1b2c00012c7d5x8k9m3p",
    },
  },
  "recording.failed": {
    id: "evt_n0r3c0",
    type: "recording.failed",
    createdAt: exampleTime,
    data: {
      callSid: "CA0123456789abcdef0123456789abcdef",
      recordingSid: "RE0123456789abcdef0123456789abcdef",
      url: null,
      durationSeconds: null,
      channels: 2,
      status: "absent",
      phoneNumberId: "cmwra1b2c00012c7d5x8k9m3p",
    },
  },
  "call.error": {
    id: "evt_9z8y7x",
    type: "call.error",
    createdAt: exampleTime,
    data: {
      ...exampleEventData,
      status: "ringing",
      error: { code: "START_CALLBACK_TIMEOUT", message: "onCallStartUrl: timed out" },
    },
  },
  "usage.threshold_reached": {
    id: "evt_u5a6e8",
    type: "usage.threshold_reached",
    createdAt: exampleTime,
    data: {
      threshold: 80,
      monthlyBudget: 250,
      spent: 200.04,
      month: "2026-11",
      callSid: "CA0123456789abcdef0123456789abcdef",
      phoneNumberId: exampleNumber.id,
    },
  },
  ...(Object.fromEntries(ALERT_TYPES.map((type, i) => [type, alertEvent(type, i)])) as {
    [T in AlertType]: EventExample<T>;
  }),
};

/** docs/decisions.md §16: one event per alert type, about the subject its kind is raised for. */
function alertEvent(type: AlertType, i: number): EventExample<AlertType> {
  return {
    id: `evt_al${i}x9`,
    type,
    createdAt: exampleTime,
    data: {
      kind: type,
      subject:
        type.includes("fallback") || type === "alert.number_unconfigured"
          ? { type: "number", id: exampleNumber.id }
          : type === "alert.payment_failed" || type === "alert.twilio_credentials_rejected"
            ? { type: "account", id: "acc_3d4e5f" }
            : exampleAlert.subject,
      since: exampleTime,
      details: type === "alert.endpoint_failing" ? exampleAlert.details : {},
      howToFix: "What to do, in a sentence or two.",
    },
  };
}
