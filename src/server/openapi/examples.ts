import { ALERT_TYPES } from "../../shared/schemas/alerts";
import type { RestRoute } from "../rest/routes";

/**
 * Request and response examples for the reference, consistent with the
 * API guide (docs/api.md). A test validates each one against its generated schema, so an
 * example that drifts from the code fails the build.
 */
export const exampleKey = (route: Pick<RestRoute, "method" | "path">) => `${route.method} ${route.path}`;

const ts = "2026-11-22T10:00:00.000Z";
const key = "rtk_3Xq9zH2kLmN8pQrStUvWxYz0aBcDeFgHiJkLmNoPqRsTuVw1a2B3c";
const account = { id: "cmwra2uwb00022c7dend79uxw", email: "you@example.com", companyName: "Acme", status: "INACTIVE" };
const number = {
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
  createdAt: ts,
};
const limits = { monthlyBudget: 250, alertThresholds: [50, 80, 100], hardCap: true, maxConcurrentCalls: 20 };
const engineUrl = "http://localhost:3000/api/engine/voice/rt_8hVTu2-BLhA2PHwIjJl66da6G7WYjMmU";
const twilioConnection = {
  accountSid: "AC0123456789abcdef0123456789abcdef",
  friendlyName: "Acme Voice",
  connectedAt: ts,
};
const breakdown = {
  durationSeconds: 61,
  billedMinutes: 2,
  perMinuteRate: 0.02,
  usageCost: 0.04,
  totalCost: 0.04,
  currency: "usd",
};
const attempt = {
  id: "cmwra5q0e00062c7d9k1x0c3v",
  attemptedAt: ts,
  url: "https://api.example.com/twilio/end",
  statusCode: 200,
  latencyMs: 84,
  responseExcerpt: "ok",
  error: null,
  role: null,
  outcome: null,
};
const delivery = {
  id: "cmwra4z2c00052c7dq7ds1m2n",
  eventId: "evt_3q2Hf8sLk1mNoPqR",
  eventType: "call.ended",
  callSid: "CA0123456789abcdef0123456789abcdef",
  url: "https://api.example.com/twilio/end",
  endpointId: null,
  status: "DELIVERED",
  attemptCount: 1,
  nextAttemptAt: null,
  lastAttemptAt: ts,
  deliveredAt: ts,
  createdAt: ts,
  lastAttempt: attempt,
  endpointBackoffUntil: null,
  synchronous: false,
  answerUse: null,
};
const endpoint = {
  id: "cmwra8e1p00092c7d3k5v7x2m",
  url: "https://pipeline.example.com/routekit",
  eventTypes: ["call.ended", "call.error"],
  description: "Data pipeline",
  enabled: true,
  createdAt: ts,
};
const endpointSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
// An endpoint that keeps timing out: its deliveries wait out its back-off.
const pausedDelivery = {
  ...delivery,
  id: "cmwra4z2c00072c7dv0q8r4tb",
  eventId: "evt_7Xk2Pq9sLm4nB8vW",
  callSid: "CA89abcdef0123456789abcdef01234567",
  status: "PENDING",
  attemptCount: 5,
  nextAttemptAt: "2026-11-23T10:05:00.000Z",
  deliveredAt: null,
  lastAttempt: {
    ...attempt,
    id: "cmwra5q0e00082c7d1w6f2h9k",
    statusCode: null,
    latencyMs: 10000,
    responseExcerpt: null,
    error: "timeout: no answer within 10000 ms",
  },
  endpointBackoffUntil: "2026-11-23T10:02:00.000Z",
};
const eventData = {
  callSid: "CA0123456789abcdef0123456789abcdef",
  direction: "inbound",
  from: "+14155550100",
  to: "+14155550123",
  phoneNumberId: number.id,
};

/** A completed inbound call as the call log shows it; `answer` and `error` say how it was decided. */
function callExample(decided: { answer: string; error: { code: string; message: string } | null }) {
  return {
    callSid: "CA0123456789abcdef0123456789abcdef",
    direction: "inbound",
    from: "+14155550100",
    to: "+14155550123",
    phoneNumberId: number.id,
    status: "completed",
    startedAt: ts,
    endedAt: "2026-11-22T10:01:01.000Z",
    durationSeconds: 61,
    billedMinutes: 2,
    costBreakdown: breakdown,
    answeredBy: null,
    endReason: "completed",
    sipResponseCode: 200,
    errorCode: null,
    test: false,
    ...decided,
  };
}

/** A live-call command as the call's timeline shows it. */
function controlCommandExample(command: "hangup" | "redirect" | "transfer", details: Record<string, unknown>) {
  return {
    type: "command" as const,
    at: "2026-11-22T10:00:30.000Z",
    command,
    actor: "rtk_7Hq2Xp9a",
    outcome: "ok" as const,
    providerStatus: 200,
    providerError: null,
    latencyMs: 142,
    ownMs: 6,
    details,
  };
}

export const ROUTE_EXAMPLES: Record<string, { request?: unknown; response?: unknown }> = {
  "GET /api/health": { response: { status: "ok" } },
  "GET /api/ready": {
    response: {
      status: "ready",
      checks: { database: "ok", journal: "ok", redis: "ok" },
      journal: { writable: true, freeBytes: 41_231_872_000, depth: 0, oldestAgeSeconds: null },
    },
  },
  "POST /api/auth/register": {
    request: { email: "you@example.com", password: "correct horse", companyName: "Acme" },
    response: {
      account,
      apiKey: key,
      token: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJjbXdyYTJ1d2IwMDAyMmM3ZGVuZDc5dXh3In0.c2lnbmF0dXJl",
      checkoutUrl: "http://localhost:3000/billing/checkout/eyJhbGciOi…",
      engineVoiceUrl: "http://localhost:3000/api/engine/voice/rt_8hVTu2-BLhA2PHwIjJl66da6G7WYjMmU",
    },
  },
  "POST /api/auth/login": {
    request: { email: "you@example.com", password: "correct horse" },
    response: {
      token: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJjbXdyYTJ1d2IwMDAyMmM3ZGVuZDc5dXh3In0.c2lnbmF0dXJl",
      expiresAt: ts,
    },
  },
  "POST /api/auth/logout": { response: { loggedOut: true } },
  "GET /api/account": {
    response: {
      account: {
        ...account,
        status: "ACTIVE",
        createdAt: ts,
        webhookSecret: "whsec_UKZ9pfX8PeDawR+GnxjvcgDmFMvjcM+ReSdrooxns2I=",
        engineVoiceUrl: "http://localhost:3000/api/engine/voice/rt_8hVTu2-BLhA2PHwIjJl66da6G7WYjMmU",
        _count: { phoneNumbers: 1, apiKeys: 2 },
      },
    },
  },
  "POST /api/account/webhook-secret": {
    response: {
      webhookSecret: "whsec_Q2hhbmdlZCBzZWNyZXQgZm9yIGV4YW1wbGUgb25seQ==",
      previousSecretExpiresAt: "2026-11-23T10:00:00.000Z",
    },
  },
  "POST /api/account/engine-url": {
    response: {
      engineVoiceUrl: "http://localhost:3000/api/engine/voice/rt_Q3b9Xk2mN7pL4sV8wY1zA5cD6eF0gHjK",
      previousExpiresAt: "2026-11-23T10:00:00.000Z",
      twilioNumbers: { repointed: ["+14155550123"], failed: [] },
    },
  },
  "GET /api/account/limits": {
    response: {
      limits,
      current: { month: "2026-11", spent: 212.46, liveCalls: 3, thresholdsReached: [50, 80] },
    },
  },
  "PUT /api/account/limits": {
    request: limits,
    response: {
      limits,
      current: { month: "2026-11", spent: 212.46, liveCalls: 3, thresholdsReached: [50, 80] },
    },
  },
  "PUT /api/twilio-connection": {
    request: { accountSid: twilioConnection.accountSid, authToken: "your_auth_token" },
    response: { twilioConnection },
  },
  "GET /api/twilio-connection": { response: { twilioConnection } },
  "DELETE /api/twilio-connection": { response: { disconnected: true } },
  "GET /api/twilio-connection/numbers": {
    response: {
      numbers: [
        {
          sid: "PN0123456789abcdef0123456789abcdef",
          phoneNumber: "+14155550123",
          friendlyName: "(415) 555-0123",
          voiceUrl: engineUrl,
          statusCallback: engineUrl,
          registered: true,
          configured: true,
        },
        {
          sid: "PNfedcba9876543210fedcba9876543210",
          phoneNumber: "+14155550124",
          friendlyName: "Support line",
          voiceUrl: "https://demo.twilio.com/welcome/voice/",
          statusCallback: null,
          registered: false,
          configured: false,
        },
      ],
      subaccounts: [],
    },
  },
  "POST /api/api-keys": {
    request: { label: "CI" },
    response: { id: "cmwra6c9f00072c7d0v8a4n1q", key, keyPrefix: key.slice(0, 12), label: "CI", createdAt: ts },
  },
  "GET /api/api-keys": {
    response: {
      apiKeys: [
        { id: "cmwra2uwb00012c7d7x0e5b4k", keyPrefix: "rtk_DKFv6bh5", label: "Default", lastUsedAt: ts, createdAt: ts },
      ],
    },
  },
  "DELETE /api/api-keys/:id": { response: { revoked: true } },
  "POST /api/phone-numbers": {
    request: {
      phoneNumber: number.phoneNumber,
      onCallStartUrl: number.onCallStartUrl,
      onCallEndUrl: number.onCallEndUrl,
      onErrorUrl: number.onErrorUrl,
      answerTimeoutMs: number.answerTimeoutMs,
      fallback: number.fallback,
      lastResort: number.lastResort,
    },
    response: { phoneNumber: number },
  },
  "GET /api/phone-numbers": { response: { phoneNumbers: [number] } },
  "GET /api/phone-numbers/:id": { response: { phoneNumber: number } },
  "PATCH /api/phone-numbers/:id": {
    request: { onErrorUrl: null, fallback: { actions: [{ say: "Please hold." }, { dial: "+14155550199" }] } },
    response: {
      phoneNumber: {
        ...number,
        onErrorUrl: null,
        fallback: { actions: [{ say: "Please hold." }, { dial: "+14155550199" }] },
      },
    },
  },
  "GET /api/phone-numbers/:id/fallback-preview": {
    response: {
      preview: {
        first: { takenOverBy: "fallback-url", url: "https://backup.example.com/twilio/start", twiml: null },
        thenIfItFails: {
          takenOverBy: "last-resort",
          url: null,
          twiml:
            '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Sorry, we cannot take your call right now.</Say><Hangup/></Response>',
        },
      },
    },
  },
  "POST /api/phone-numbers/:id/simulate-call": {
    request: { from: "+14155550100" },
    response: {
      call: {
        ...callExample({ answer: "xml", error: null }),
        callSid: "CA5d41402abc4b2a76b9719d911017c592",
        endedAt: "2026-11-22T10:00:00.120Z",
        durationSeconds: 0,
        billedMinutes: 0,
        costBreakdown: null,
        sipResponseCode: null,
        test: true,
        timeline: [
          { type: "request", at: ts, kind: "voice", callStatus: "ringing", sequenceNumber: null },
          {
            type: "call.started",
            at: ts,
            deliveryId: "cmwra4z2c00052c7dq7ds1m2n",
            attempt: "primary",
            outcome: "xml",
            url: "https://api.example.com/twilio/start",
            statusCode: 200,
            latencyMs: 84,
            responseExcerpt: "<Response><Say>Hello</Say></Response>",
            error: null,
            answerUse: "xml",
          },
          { type: "twiml", at: "2026-11-22T10:00:00.084Z", twiml: "<Response><Say>Hello</Say></Response>" },
          {
            type: "event",
            at: "2026-11-22T10:00:00.120Z",
            deliveryId: delivery.id,
            eventType: "call.ended",
            url: delivery.url,
            status: "PENDING",
            attemptCount: 0,
          },
        ],
        recordings: [],
      },
      twiml: "<Response><Say>Hello</Say></Response>",
    },
  },
  "DELETE /api/phone-numbers/:id": { response: { deleted: true } },
  "POST /api/outbound": {
    request: {
      to: "+14155550199",
      from: "+14155550123",
      onCallStartUrl: "https://api.example.com/twilio/outbound-start",
      onCallEndUrl: "https://api.example.com/twilio/outbound-end",
      providerAccountSid: "AC0123456789abcdef0123456789abcdef",
      providerAuthToken: "your_auth_token",
      metadata: { orderId: "A-17" },
      machineDetection: "Enable",
      timeout: 30,
    },
    response: { callSid: "CA0123456789abcdef0123456789abcdef", status: "queued" },
  },
  "GET /api/calls": {
    response: {
      calls: [
        callExample({
          answer: "fallback",
          error: { code: "START_CALLBACK_TIMEOUT", message: "onCallStartUrl: no answer within 5000 ms" },
        }),
      ],
      nextCursor: "MjAyNi0xMS0yMlQxMDowMDowMC4wMDBafGNtd3JhN2QyZzAwMDgyYzdkMXc5YjVvMnI",
    },
  },
  "GET /api/calls/:callSid": {
    response: {
      call: {
        ...callExample({ answer: "xml", error: null }),
        timeline: [
          { type: "request", at: ts, kind: "voice", callStatus: "ringing", sequenceNumber: null },
          {
            type: "call.started",
            at: ts,
            deliveryId: "cmwra4z2c00052c7dq7ds1m2m",
            attempt: "primary",
            outcome: "xml",
            url: "https://api.example.com/twilio/start",
            statusCode: 200,
            latencyMs: 84,
            responseExcerpt: "<Response><Say>Hello</Say></Response>",
            error: null,
            answerUse: "xml",
          },
          { type: "twiml", at: "2026-11-22T10:00:00.084Z", twiml: "<Response><Say>Hello</Say></Response>" },
          {
            type: "request",
            at: "2026-11-22T10:01:01.000Z",
            kind: "status",
            callStatus: "completed",
            sequenceNumber: 3,
          },
          {
            type: "event",
            at: "2026-11-22T10:01:01.000Z",
            deliveryId: delivery.id,
            eventType: "call.ended",
            url: delivery.url,
            status: "DELIVERED",
            attemptCount: 1,
          },
          { type: "usage", at: "2026-11-22T10:01:01.000Z", billedMinutes: 2, costBreakdown: breakdown },
        ],
        recordings: [],
      },
    },
  },
  "POST /api/calls/:callSid/hangup": {
    response: {
      call: {
        ...callExample({ answer: "xml", error: null }),
        status: "in-progress",
        endedAt: null,
        durationSeconds: null,
        billedMinutes: null,
        costBreakdown: null,
        timeline: [controlCommandExample("hangup", { status: "completed" })],
        recordings: [],
      },
    },
  },
  "POST /api/calls/:callSid/redirect": {
    request: { actions: [{ say: "Please hold while we find an agent." }, { pause: 30 }] },
    response: {
      call: {
        ...callExample({ answer: "xml", error: null }),
        status: "in-progress",
        endedAt: null,
        durationSeconds: null,
        billedMinutes: null,
        costBreakdown: null,
        timeline: [
          controlCommandExample("redirect", {
            twiml:
              '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Please hold while we find an agent.</Say><Pause length="30"/></Response>',
          }),
        ],
        recordings: [],
      },
    },
  },
  "POST /api/calls/:callSid/transfer": {
    request: {
      to: "+14155550199",
      whisper: "Caller asking about order A-17",
      timeout: 20,
      onFailure: [{ say: "Nobody is free right now; we will call you back." }, { hangup: true }],
    },
    response: {
      call: {
        ...callExample({ answer: "xml", error: null }),
        status: "in-progress",
        endedAt: null,
        durationSeconds: null,
        billedMinutes: null,
        costBreakdown: null,
        timeline: [
          controlCommandExample("transfer", {
            to: "+14155550199",
            callerId: "+14155550123",
            timeout: 20,
            whisper: "Caller asking about order A-17",
          }),
        ],
        recordings: [],
      },
    },
  },
  "POST /api/calls/:callSid/recording": {
    request: { action: "start", channels: "dual" },
    response: { recording: { sid: "RE0123456789abcdef0123456789abcdef", status: "in-progress" } },
  },
  "GET /api/usage": {
    response: {
      records: [
        {
          id: "cmwra7d2g00082c7d1w9b5o2r",
          callSid: "CA0123456789abcdef0123456789abcdef",
          direction: "inbound",
          callerPhone: "+14155550100",
          callerNumber: "+14155550100",
          calledNumber: "+14155550123",
          durationSeconds: 61,
          billedMinutes: 2,
          costBreakdown: breakdown,
          createdAt: ts,
        },
      ],
      total: 1,
      limit: 50,
      offset: 0,
      nextCursor: null,
    },
  },
  "GET /api/usage/current": {
    response: {
      currentMonth: { period: "2026-11", calls: 2, minutes: 3, billedMinutes: 3, estimatedCost: 49.06 },
      allTime: { calls: 2, minutes: 3, billedMinutes: 3 },
      perMinuteRate: 0.02,
      monthlyBase: 49,
    },
  },
  "GET /api/usage/daily": {
    response: {
      days: [
        { date: "2026-11-20", calls: 0, billedMinutes: 0, totalCost: 0 },
        { date: "2026-11-21", calls: 1, billedMinutes: 2, totalCost: 0.04 },
        { date: "2026-11-22", calls: 1, billedMinutes: 1, totalCost: 0.02 },
      ],
    },
  },
  "GET /api/billing/subscription": {
    response: {
      status: "ACTIVE",
      monthlyBase: 49,
      perMinuteRate: 0.02,
      totalCalls: 2,
      totalMinutes: 3,
      totalBilledMinutes: 3,
      hasPaymentMethod: true,
      currentPeriodStart: "2026-11-01T00:00:00.000Z",
      currentPeriodEnd: "2026-12-01T00:00:00.000Z",
      subscriptionStatus: "active",
    },
  },
  "POST /api/billing/checkout": { response: { url: "https://checkout.stripe.com/c/pay/cs_test_a1b2c3" } },
  "POST /api/billing/portal": { response: { url: "https://billing.stripe.com/p/session/test_YWNjdF8x" } },
  "GET /api/webhook-deliveries": {
    response: { deliveries: [delivery, pausedDelivery], total: 2, limit: 50, offset: 0 },
  },
  "GET /api/lookup": {
    response: { match: { kind: "delivery", id: "cmwra4z2c00052c7dq7ds1m2m", eventId: delivery.eventId } },
  },
  "GET /api/webhook-deliveries/:id": {
    response: {
      delivery: {
        ...delivery,
        payload: {
          id: delivery.eventId,
          type: "call.ended",
          createdAt: ts,
          data: {
            ...eventData,
            status: "completed",
            durationSeconds: 61,
            billedMinutes: 2,
            costBreakdown: breakdown,
            endReason: "completed",
            sipResponseCode: 200,
            errorCode: null,
          },
        },
        attempts: [attempt],
      },
    },
  },
  "POST /api/webhook-deliveries/:id/retry": {
    response: {
      delivery: {
        ...delivery,
        status: "PENDING",
        nextAttemptAt: ts,
        payload: {
          id: delivery.eventId,
          type: "call.ended",
          createdAt: ts,
          data: { ...eventData, status: "completed" },
        },
        attempts: [attempt],
      },
    },
  },
  "POST /api/webhook-deliveries/test": {
    request: { phoneNumberId: number.id, type: "call.ended" },
    response: {
      delivery: {
        ...delivery,
        eventId: "evt_9kTq2Lm4Np6Rs8Uv",
        callSid: "CA00000000000000000000000000000000",
        payload: {
          id: "evt_9kTq2Lm4Np6Rs8Uv",
          type: "call.ended",
          createdAt: ts,
          data: {
            callSid: "CA00000000000000000000000000000000",
            direction: "inbound",
            from: "+15005550006",
            to: number.phoneNumber,
            phoneNumberId: number.id,
            status: "completed",
            durationSeconds: 42,
            billedMinutes: 1,
            costBreakdown: { ...breakdown, durationSeconds: 42, billedMinutes: 1, usageCost: 0.02, totalCost: 0.02 },
            test: true,
          },
        },
        attempts: [attempt],
      },
    },
  },
  "POST /api/webhook-deliveries/replay": {
    request: { since: "2026-11-21T00:00:00.000Z", status: "FAILED" },
    response: { queued: 3, more: false },
  },
  "POST /api/webhook-endpoints": {
    request: { url: endpoint.url, eventTypes: endpoint.eventTypes, description: endpoint.description },
    response: { webhookEndpoint: { ...endpoint, secret: endpointSecret } },
  },
  "GET /api/webhook-endpoints": {
    response: {
      webhookEndpoints: [
        endpoint,
        {
          ...endpoint,
          id: "cmwra8e1p00102c7d9q2w4e6r",
          url: "https://app.example.com/hooks",
          eventTypes: ["*"],
          description: "",
        },
      ],
    },
  },
  "GET /api/webhook-endpoints/:id": { response: { webhookEndpoint: { ...endpoint, secret: endpointSecret } } },
  "PATCH /api/webhook-endpoints/:id": {
    request: { enabled: false },
    response: { webhookEndpoint: { ...endpoint, enabled: false } },
  },
  "DELETE /api/webhook-endpoints/:id": { response: { deleted: true } },
  "POST /api/webhook-endpoints/:id/secret": {
    response: { secret: "whsec_Zk3nq0VvO1LJ4Yx8mR2tBwC6sUeHa9Gd", previousSecretExpiresAt: "2026-11-23T10:00:00.000Z" },
  },
  "GET /api/event-types": {
    response: {
      eventTypes: [
        {
          type: "call.ringing",
          description:
            "Twilio reported the call ringing (status callback). Account endpoints that subscribe to it only",
          schema: {
            $schema: "https://json-schema.org/draft/2020-12/schema",
            type: "object",
            properties: { id: { type: "string" }, type: { type: "string", const: "call.ringing" } },
            required: ["id", "type", "createdAt", "data"],
          },
        },
      ],
    },
  },
  "event call.ringing": {
    request: { id: "evt_r1ng1ng", type: "call.ringing", createdAt: ts, data: { ...eventData, status: "ringing" } },
  },
  "event call.answered": {
    request: {
      id: "evt_4nsw3r3d",
      type: "call.answered",
      createdAt: ts,
      data: { ...eventData, status: "in-progress" },
    },
  },
  "event call.started": {
    request: { id: "evt_1a2b3c", type: "call.started", createdAt: ts, data: { ...eventData, status: "ringing" } },
  },
  "event call.ended": {
    request: {
      id: "evt_3q2Hf8sLk1mNoPqR",
      type: "call.ended",
      createdAt: ts,
      data: {
        ...eventData,
        status: "completed",
        durationSeconds: 61,
        billedMinutes: 2,
        costBreakdown: breakdown,
        endReason: "completed",
        sipResponseCode: 200,
        errorCode: null,
      },
    },
  },
  "event call.transferred": {
    request: {
      id: "evt_4t5r6a",
      type: "call.transferred",
      createdAt: ts,
      data: {
        callSid: "CA0123456789abcdef0123456789abcdef",
        to: "+14155550199",
        dialCallStatus: "completed",
        dialCallSid: "CAfedcba9876543210fedcba9876543210",
        dialCallDurationSeconds: 94,
        phoneNumberId: "cmwra1b2c00012c7d5x8k9m3p",
      },
    },
  },
  "event call.transfer_failed": {
    request: {
      id: "evt_7f8a9i",
      type: "call.transfer_failed",
      createdAt: ts,
      data: {
        callSid: "CA0123456789abcdef0123456789abcdef",
        to: "+14155550199",
        dialCallStatus: "no-answer",
        phoneNumberId: "cmwra1b2c00012c7d5x8k9m3p",
      },
    },
  },
  "event recording.completed": {
    request: {
      id: "evt_r3c0rd",
      type: "recording.completed",
      createdAt: ts,
      data: {
        callSid: "CA0123456789abcdef0123456789abcdef",
        recordingSid: "RE0123456789abcdef0123456789abcdef",
        url: "https://api.twilio.com/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef/Recordings/RE0123456789abcdef0123456789abcdef",
        durationSeconds: 42,
        channels: 2,
        phoneNumberId: "cmwra1b2c00012c7d5x8k9m3p",
      },
    },
  },
  "event recording.failed": {
    request: {
      id: "evt_n0r3c0",
      type: "recording.failed",
      createdAt: ts,
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
  },
  "event call.error": {
    request: {
      id: "evt_9z8y7x",
      type: "call.error",
      createdAt: ts,
      data: {
        ...eventData,
        status: "ringing",
        error: { code: "START_CALLBACK_TIMEOUT", message: "onCallStartUrl: timed out" },
      },
    },
  },
  "event usage.threshold_reached": {
    request: {
      id: "evt_u5a6e8",
      type: "usage.threshold_reached",
      createdAt: ts,
      data: {
        threshold: 80,
        monthlyBudget: 250,
        spent: 200.04,
        month: "2026-11",
        callSid: "CA0123456789abcdef0123456789abcdef",
        phoneNumberId: number.id,
      },
    },
  },
  ...alertExamples(),
};

/** docs/decisions.md §16: GET /api/alerts, the alert settings and one event per alert type. */
function alertExamples(): Record<string, { request?: unknown; response?: unknown }> {
  const failing = {
    id: "alr_7k2m9q",
    type: "alert.endpoint_failing",
    subject: { type: "endpoint", id: "we_5f6g7h", url: "https://api.example.com/routekit/events" },
    since: ts,
    details: { consecutiveFailures: 3, lastFailureAt: ts, backedOffUntil: null },
    howToFix:
      "Check that your server (https://api.example.com/routekit/events) is up and answers 2xx within 10 s; see the failed attempts in Deliveries. Routekit keeps retrying with backoff and never disables it; deliveries that give up can be redelivered.",
    eventId: "evt_a1l2e3",
    resolvedAt: null,
    createdAt: ts,
  };
  const email = Object.fromEntries(ALERT_TYPES.map((t) => [t, t !== "alert.delivery_exhausted"]));
  const events = Object.fromEntries(
    ALERT_TYPES.map((type, i) => [
      `event ${type}`,
      {
        request: {
          id: `evt_al${i}x9`,
          type,
          createdAt: ts,
          data: {
            kind: type,
            subject:
              type.includes("fallback") || type === "alert.number_unconfigured"
                ? { type: "number", id: number.id }
                : type === "alert.payment_failed" || type === "alert.twilio_credentials_rejected"
                  ? { type: "account", id: "acc_3d4e5f" }
                  : failing.subject,
            since: ts,
            details: type === "alert.endpoint_failing" ? failing.details : {},
            howToFix: "What to do, in a sentence or two.",
          },
        },
      },
    ]),
  );
  return {
    "GET /api/alerts": { response: { alerts: [failing], nextCursor: null } },
    "GET /api/account/alert-settings": { response: { email } },
    "PUT /api/account/alert-settings": {
      request: { email: { "alert.delivery_exhausted": false } },
      response: { email },
    },
    ...events,
  };
}
