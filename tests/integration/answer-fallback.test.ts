import { createServer } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simulateInboundCall } from "../../src/twilio-simulator/twilio-simulator";
import {
  BACKEND_OK_TWIML,
  startCustomerBackend,
  type BackendMode,
  type CustomerBackend,
} from "../../src/twilio-simulator/customer-backend";
import { newActiveAccount, numberBody, randomUsNumber, type TestAccount } from "../support/api";
import { startReceiver } from "../support/receiver";
import { until } from "../support/until";

// docs/decisions.md §12: a caller is never dropped because the backend blinked. The permissive
// server runs with CALLBACK_START_TIMEOUT_MS=1500 and VOICE_ANSWER_BUDGET_MS=4000 (integration-global-setup.ts),
// so the deadlines are measured in seconds, not in Twilio's 15.
const BUDGET_MS = 4000;
const FALLBACK_TWIML =
  '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Our fallback answers</Say><Hangup/></Response>';
const FALLBACK_URL_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>The fallback backend</Say></Response>';

let events: Awaited<ReturnType<typeof startReceiver>>;
const backends: CustomerBackend[] = [];

beforeAll(async () => {
  events = await startReceiver((_r, res) => res.writeHead(200).end("ok"));
});
afterAll(async () => {
  await events.close();
  await Promise.all(backends.map((b) => b.close()));
});

async function backend(mode: BackendMode, twiml?: string): Promise<CustomerBackend> {
  const b = await startCustomerBackend({ mode, ...(twiml ? { twiml } : {}) });
  backends.push(b);
  return b;
}

/** A port nothing listens on: connecting is refused. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

type Setup = { account: TestAccount; number: string; numberId: string; errorPath: string };

async function setup(startUrl: string, policy: Record<string, unknown>): Promise<Setup> {
  const account = await newActiveAccount({ server: "permissive" });
  const errorPath = `/${account.id}/error`;
  const number = randomUsNumber();
  const res = await account.as("POST", "/api/phone-numbers", {
    body: numberBody({
      phoneNumber: number,
      onCallStartUrl: startUrl,
      onCallEndUrl: events.url(`/${account.id}/end`),
      onErrorUrl: events.url(errorPath),
      ...policy,
    }),
  });
  expect(res.status, res.text).toBe(201);
  return { account, number, numberId: res.body.phoneNumber.id, errorPath };
}

async function ring(s: Setup) {
  const played = await simulateInboundCall({
    engineUrl: s.account.engineVoiceUrl,
    from: "+14155550100",
    to: s.number,
    durationSeconds: 3,
  });
  return { callSid: played.callSid, answer: played.answer! };
}

async function callError(s: Setup, callSid: string) {
  return until(() => {
    const r = events.received.find((e) => e.path === s.errorPath && JSON.parse(e.body).data.callSid === callSid);
    return r && JSON.parse(r.body);
  }, "call.error");
}

async function timeline(s: Setup, callSid: string) {
  return until(async () => {
    const res = await s.account.as("GET", `/api/calls/${callSid}`);
    return res.status === 200 && res.body.call.answer !== null && res.body.call;
  }, "the call's answer on record");
}

const startedTries = (call: { timeline: { type: string }[] }) =>
  call.timeline.filter((e) => e.type === "call.started") as unknown as {
    attempt: string;
    outcome: string | null;
    url: string;
    statusCode: number | null;
    latencyMs: number;
  }[];

describe("the answer flow when onCallStartUrl fails", () => {
  it("hangs: stored fallback actions answer once answerTimeoutMs is over; call.error says fallback-actions", async () => {
    const primary = await backend("hang");
    const s = await setup(primary.url(), {
      answerTimeoutMs: 1000,
      fallback: { actions: [{ say: "Please hold", voice: "alice" }, { dial: "+14155550199" }] },
    });
    const { callSid, answer } = await ring(s);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Say voice="alice">Please hold</Say><Dial>+14155550199</Dial></Response>',
    );
    // The primary gets its 1 s, and the stored fallback is answered at once after it.
    expect(answer.ms).toBeGreaterThanOrEqual(950);
    expect(answer.ms).toBeLessThan(1000 + 400);

    const error = await callError(s, callSid);
    expect(error.data).toMatchObject({ takenOverBy: "fallback-actions", error: { code: "START_CALLBACK_TIMEOUT" } });
    const call = await timeline(s, callSid);
    expect(call.answer).toBe("fallback-actions");
    expect(call.error).toMatchObject({ code: "START_CALLBACK_TIMEOUT" });
    expect(startedTries(call)).toMatchObject([
      { attempt: "primary", outcome: "START_CALLBACK_TIMEOUT", url: primary.url(), statusCode: null },
    ]);
  });

  it("answers 500: the stored fallback TwiML is returned within 50 ms of the failure; fallback-twiml", async () => {
    const primary = await backend("500");
    const s = await setup(primary.url(), { fallback: { twiml: FALLBACK_TWIML } });
    const { callSid, answer } = await ring(s);
    expect(answer.body).toBe(FALLBACK_TWIML);
    const call = await timeline(s, callSid);
    const [tried] = startedTries(call);
    expect(tried).toMatchObject({ attempt: "primary", outcome: "START_CALLBACK_STATUS", statusCode: 500 });
    expect(call.answer).toBe("fallback-twiml");
    // From the 500 to Twilio's answer: what the engine added after the primary failed.
    expect(answer.ms - tried!.latencyMs).toBeLessThan(50 + 50 /* the simulator's own HTTP round trip */);
    const error = await callError(s, callSid);
    expect(error.data).toMatchObject({ takenOverBy: "fallback-twiml", error: { code: "START_CALLBACK_STATUS" } });
  });

  it("answers invalid XML: the fallback URL gets the same signed event with data.fallback, and its answer decides", async () => {
    const primary = await backend("invalid-xml");
    const second = await backend("ok", FALLBACK_URL_TWIML);
    const s = await setup(primary.url(), { fallback: { url: second.url("/fallback") } });
    const { callSid, answer } = await ring(s);
    expect(answer.body).toBe(FALLBACK_URL_TWIML);

    const [first] = primary.received;
    const [fallback] = second.received;
    expect(fallback!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    const secret = (await s.account.as("GET", "/api/account")).body.account.webhookSecret;
    const verified = new Webhook(secret).verify(fallback!.body, fallback!.headers as Record<string, string>) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(verified.type).toBe("call.started");
    expect(verified.data).toMatchObject({
      callSid,
      fallback: { reason: "START_CALLBACK_INVALID", primaryUrl: primary.url() },
    });
    expect(JSON.parse(first!.body).data.fallback).toBeUndefined();

    const call = await timeline(s, callSid);
    expect(call.answer).toBe("fallback-url");
    expect(startedTries(call)).toMatchObject([
      { attempt: "primary", outcome: "START_CALLBACK_INVALID", statusCode: 200 },
      { attempt: "fallback-url", outcome: "xml", statusCode: 200, url: second.url("/fallback") },
    ]);
    const error = await callError(s, callSid);
    expect(error.data).toMatchObject({ takenOverBy: "fallback-url", error: { code: "START_CALLBACK_INVALID" } });

    // Both tries are attempts of the one call.started delivery in the delivery log.
    const list = await s.account.as("GET", `/api/webhook-deliveries?callSid=${callSid}`);
    const started = list.body.deliveries.find((d: { eventType: string }) => d.eventType === "call.started");
    const one = await s.account.as("GET", `/api/webhook-deliveries/${started.id}`);
    expect(one.body.delivery).toMatchObject({ synchronous: true, status: "DELIVERED", attemptCount: 2 });
    expect(one.body.delivery.attempts.map((a: { role: string }) => a.role).sort()).toEqual(["fallback-url", "primary"]);
  });

  it("resets the first connection: it is retried at once and the retry's answer decides; call.error says retry", async () => {
    const primary = await backend("reset-first");
    const s = await setup(primary.url(), { fallback: { twiml: FALLBACK_TWIML } });
    const { callSid, answer } = await ring(s);
    expect(answer.body).toBe(BACKEND_OK_TWIML);
    expect(primary.resets).toBe(1);
    expect(answer.ms).toBeLessThan(1000);

    const call = await timeline(s, callSid);
    expect(call.answer).toBe("xml");
    expect(startedTries(call)).toMatchObject([
      { attempt: "primary", outcome: "START_CALLBACK_UNREACHABLE", statusCode: null },
      { attempt: "retry", outcome: "xml", statusCode: 200 },
    ]);
    const error = await callError(s, callSid);
    expect(error.data).toMatchObject({ takenOverBy: "retry", error: { code: "START_CALLBACK_UNREACHABLE" } });
  });

  it("refuses every connection: one retry, then the apology (no fallback configured)", async () => {
    const port = await closedPort();
    const s = await setup(`http://127.0.0.1:${port}/start`, {});
    const { callSid, answer } = await ring(s);
    expect(answer.body).toMatch(/<Say>We're sorry[^<]*<\/Say><Hangup\/>/);
    const call = await timeline(s, callSid);
    expect(call.answer).toBe("fallback");
    expect(startedTries(call).map((t) => t.attempt)).toEqual(["primary", "retry"]);
    const error = await callError(s, callSid);
    expect(error.data).toMatchObject({ takenOverBy: "apology", error: { code: "START_CALLBACK_UNREACHABLE" } });
  });

  it("a timeout is never retried", async () => {
    const primary = await backend("hang");
    const s = await setup(primary.url(), { answerTimeoutMs: 1000 });
    const { callSid } = await ring(s);
    const call = await timeline(s, callSid);
    expect(startedTries(call).map((t) => t.attempt)).toEqual(["primary"]);
    expect(primary.received).toHaveLength(1);
  });

  it("hangs on both primary and fallback URL: the last resort answers within the whole budget", async () => {
    const primary = await backend("hang");
    const second = await backend("hang");
    const s = await setup(primary.url(), {
      answerTimeoutMs: 1000,
      fallback: { url: second.url("/fallback") },
      lastResort: { actions: [{ say: "Sorry, try again later" }, { reject: { reason: "busy" } }] },
    });
    const { callSid, answer } = await ring(s);
    expect(answer.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Sorry, try again later</Say><Reject reason="busy"/></Response>',
    );
    // The fallback URL gets what remains of the budget: the whole request ends just inside it.
    expect(answer.ms).toBeGreaterThanOrEqual(BUDGET_MS - 400);
    expect(answer.ms).toBeLessThanOrEqual(BUDGET_MS + 250);

    const call = await timeline(s, callSid);
    expect(call.answer).toBe("fallback");
    const tries = startedTries(call);
    expect(tries).toMatchObject([
      { attempt: "primary", outcome: "START_CALLBACK_TIMEOUT" },
      { attempt: "fallback-url", outcome: "START_CALLBACK_TIMEOUT" },
    ]);
    expect(tries[1]!.latencyMs).toBeGreaterThan(BUDGET_MS - 1000 - 500);
    const error = await callError(s, callSid);
    expect(error.data).toMatchObject({ takenOverBy: "last-resort", error: { code: "START_CALLBACK_TIMEOUT" } });
  });

  it("a call in flight keeps the policy it started with", async () => {
    const primary = await backend("hang");
    const s = await setup(primary.url(), { answerTimeoutMs: 1000, fallback: { twiml: FALLBACK_TWIML } });
    const ringing = ring(s);
    await until(() => primary.received.length > 0, "call.started");
    const patched = await s.account.as("PATCH", `/api/phone-numbers/${s.numberId}`, {
      body: { fallback: { actions: [{ say: "changed" }] } },
    });
    expect(patched.status).toBe(200);
    expect((await ringing).answer.body).toBe(FALLBACK_TWIML);
  });
});

describe("the answer policy on a number", () => {
  it("is returned, previewed, changed field by field, and cleared with null", async () => {
    const s = await setup("http://127.0.0.1:9/start", {
      answerTimeoutMs: 2500,
      fallback: { url: "http://127.0.0.1:9/fallback" },
      lastResort: { actions: [{ say: "Goodbye" }, { hangup: true }] },
    });
    const got = await s.account.as("GET", `/api/phone-numbers/${s.numberId}`);
    expect(got.body.phoneNumber).toMatchObject({
      answerTimeoutMs: 2500,
      fallback: { url: "http://127.0.0.1:9/fallback" },
      lastResort: { actions: [{ say: "Goodbye" }, { hangup: true }] },
    });

    const preview = await s.account.as("GET", `/api/phone-numbers/${s.numberId}/fallback-preview`);
    expect(preview.status).toBe(200);
    expect(preview.body.preview).toEqual({
      first: { takenOverBy: "fallback-url", url: "http://127.0.0.1:9/fallback", twiml: null },
      thenIfItFails: {
        takenOverBy: "last-resort",
        url: null,
        twiml: '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Goodbye</Say><Hangup/></Response>',
      },
    });

    const patched = await s.account.as("PATCH", `/api/phone-numbers/${s.numberId}`, {
      body: { fallback: { twiml: FALLBACK_TWIML }, answerTimeoutMs: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.phoneNumber).toMatchObject({
      answerTimeoutMs: null,
      fallback: { twiml: FALLBACK_TWIML },
      lastResort: { actions: [{ say: "Goodbye" }, { hangup: true }] },
    });
    const again = await s.account.as("GET", `/api/phone-numbers/${s.numberId}/fallback-preview`);
    expect(again.body.preview).toEqual({
      first: { takenOverBy: "fallback-twiml", url: null, twiml: FALLBACK_TWIML },
      thenIfItFails: null,
    });

    const cleared = await s.account.as("PATCH", `/api/phone-numbers/${s.numberId}`, {
      body: { fallback: null, lastResort: null },
    });
    expect(cleared.body.phoneNumber).toMatchObject({ answerTimeoutMs: null, fallback: null, lastResort: null });
    const apology = await s.account.as("GET", `/api/phone-numbers/${s.numberId}/fallback-preview`);
    expect(apology.body.preview.first.takenOverBy).toBe("apology");
  });

  it.each([
    ["answerTimeoutMs below 1000", { answerTimeoutMs: 999 }, "answerTimeoutMs"],
    ["answerTimeoutMs above 10000", { answerTimeoutMs: 10_001 }, "answerTimeoutMs"],
    ["a fallback with two kinds", { fallback: { twiml: FALLBACK_TWIML, actions: [{ hangup: true }] } }, "fallback"],
    ["an empty fallback", { fallback: {} }, "fallback"],
    ["fallback actions with an unknown action", { fallback: { actions: [{ sms: "hi" }] } }, "fallback.actions"],
    ["fallback actions with a bad dial", { fallback: { actions: [{ dial: "12" }] } }, "fallback.actions"],
    [
      "fallback TwiML that is not well-formed",
      { fallback: { twiml: "<Response><Say>x</Response>" } },
      "fallback.twiml",
    ],
    ["fallback TwiML that is not a Response", { fallback: { twiml: "<Hello/>" } }, "fallback.twiml"],
    ["a fallback URL outside the URL policy", { fallback: { url: "http://127.0.0.1/fallback" } }, "fallback.url"],
    [
      "a gather whose actionUrl is outside the URL policy",
      { fallback: { actions: [{ gather: { actionUrl: "http://10.0.0.1/g" } }] } },
      "fallback.actions",
    ],
    ["a last resort that is not actions", { lastResort: { twiml: FALLBACK_TWIML } }, "lastResort"],
    ["a last resort with a bad action", { lastResort: { actions: [{ pause: 0 }] } }, "lastResort.actions"],
  ])("%s is a 400 when saved", async (_name, policy, path) => {
    // The strict server: production's URL policy.
    const account = await newActiveAccount();
    const res = await account.as("POST", "/api/phone-numbers", { body: numberBody(policy) });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_FAILED");
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);

    const ok = await account.as("POST", "/api/phone-numbers", { body: numberBody() });
    const patched = await account.as("PATCH", `/api/phone-numbers/${ok.body.phoneNumber.id}`, { body: policy });
    expect(patched.status).toBe(400);
    expect(patched.body.error.code).toBe("VALIDATION_FAILED");
  });
});
