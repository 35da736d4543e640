import type { z } from "zod";
import type { ZAlert } from "../../../shared/schemas/alerts";
import type { ZAccountSummary } from "../../../shared/schemas/auth";
import type { TCall } from "../../../shared/schemas/calls";
import type { ZEventEnvelope } from "../../../shared/schemas/events";
import type { ZPhoneNumber } from "../../../shared/schemas/phone-numbers";
import type { ZCostBreakdown } from "../../../shared/schemas/usage";
import type { ZWebhookAttempt, ZWebhookDelivery } from "../../../shared/schemas/webhook-deliveries";

/**
 * The one account of the reference's examples and what it owns, shared by the examples each route
 * declares on its own spec (`examples` in `restProcedure`) and by the events' (`event-examples.ts`), so
 * that a number, call or delivery has the same id and URL wherever the reference shows it; consistent
 * with the API guide (docs/api.md). Each is typed by the schema it is an example of.
 */
export const exampleTime = "2026-11-22T10:00:00.000Z";
export const exampleApiKey = "rtk_3Xq9zH2kLmN8pQrStUvWxYz0aBcDeFgHiJkLmNoPqRsTuVw1a";
export const exampleEngineVoiceUrl = "http://localhost:3000/api/engine/voice/rt_8hVTu2-BLhA2PHwIjJl66da6G7WYjMmU";

export const exampleAccount = {
  id: "cmwra2uwb00022c7dend79uxw",
  email: "you@example.com",
  companyName: "Acme",
  status: "INACTIVE",
} satisfies z.output<typeof ZAccountSummary>;

export const exampleNumber = {
  id: "cmwra3b1k00032c7d5hxl2m9q",
  phoneNumber: "+14155550123",
  onCallStartUrl: "https://api.example.com/twilio/start",
  onCallEndUrl: "https://api.example.com/twilio/end",
  onErrorUrl: "https://api.example.com/twilio/error",
  answerTimeoutMs: 4000,
  fallback: { url: "https://backup.example.com/twilio/start" },
  lastResort: { actions: [{ say: "Sorry, we cannot take your call right now." }, { hangup: true }] },
  isActive: true,
  verified: true,
  twilioConfigured: true,
  dailyMinuteCap: 600,
  minutesToday: 42,
  createdAt: exampleTime,
} satisfies z.output<typeof ZPhoneNumber>;

export const exampleCostBreakdown = {
  durationSeconds: 61,
  billedMinutes: 2,
  perMinuteRate: 0.02,
  usageCost: 0.04,
  totalCost: 0.04,
  currency: "usd",
} satisfies z.output<typeof ZCostBreakdown>;

export const exampleAttempt = {
  id: "cmwra5q0e00062c7d9k1x0c3v",
  attemptedAt: exampleTime,
  url: "https://api.example.com/twilio/end",
  statusCode: 200,
  latencyMs: 84,
  responseExcerpt: "ok",
  error: null,
  role: null,
  outcome: null,
} satisfies z.output<typeof ZWebhookAttempt>;

/** The call.ended delivery of the example call, delivered at the first attempt. */
export const exampleDelivery = {
  id: "cmwra4z2c00052c7dq7ds1m2n",
  eventId: "evt_3q2Hf8sLk1mNoPqR",
  eventType: "call.ended",
  callSid: "CA0123456789abcdef0123456789abcdef",
  url: "https://api.example.com/twilio/end",
  endpointId: null,
  status: "DELIVERED",
  attemptCount: 1,
  nextAttemptAt: null,
  lastAttemptAt: exampleTime,
  deliveredAt: exampleTime,
  createdAt: exampleTime,
  lastAttempt: exampleAttempt,
  endpointBackoffUntil: null,
  synchronous: false,
  answerUse: null,
} satisfies z.output<typeof ZWebhookDelivery>;

/** What every event about the example call carries in `data`. */
export const exampleEventData = {
  callSid: "CA0123456789abcdef0123456789abcdef",
  direction: "inbound",
  from: "+14155550100",
  to: "+14155550123",
  phoneNumberId: exampleNumber.id,
} satisfies z.output<typeof ZEventEnvelope>["data"];

/** A completed inbound call as the call log shows it; `answer` and `error` say how it was decided. */
export function exampleCall(decided: Pick<TCall, "answer" | "error">): TCall {
  return {
    callSid: "CA0123456789abcdef0123456789abcdef",
    direction: "inbound",
    from: "+14155550100",
    to: "+14155550123",
    phoneNumberId: exampleNumber.id,
    status: "completed",
    startedAt: exampleTime,
    endedAt: "2026-11-22T10:01:01.000Z",
    durationSeconds: 61,
    billedMinutes: 2,
    costBreakdown: exampleCostBreakdown,
    answeredBy: null,
    endReason: "completed",
    sipResponseCode: 200,
    errorCode: null,
    test: false,
    ...decided,
  };
}

/** An open alert on a failing endpoint: GET /api/alerts lists it, and its event carries its subject and details. */
export const exampleAlert = {
  id: "alr_7k2m9q",
  type: "alert.endpoint_failing",
  subject: { type: "endpoint", id: "we_5f6g7h", url: "https://api.example.com/routekit/events" },
  since: exampleTime,
  details: { consecutiveFailures: 3, lastFailureAt: exampleTime, backedOffUntil: null },
  howToFix:
    "Check that your server (https://api.example.com/routekit/events) is up and answers 2xx within 10 s; see the failed attempts in Deliveries. Routekit keeps retrying with backoff and never disables it; deliveries that give up can be redelivered.",
  eventId: "evt_a1l2e3",
  resolvedAt: null,
  createdAt: exampleTime,
} satisfies z.output<typeof ZAlert>;
