import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newCallSid, simulateInboundCall, type TwilioSimulator } from "../../src/twilio-simulator/twilio-simulator";
import { randomUsNumber } from "../support/api";
import { checkEventContract } from "../support/contract";
import {
  type SimulatedCustomer,
  type SimulatedTwilioServer,
  startSimulatedTwilioServer,
} from "../support/simulated-twilio-server";
import { seeds } from "../support/seed";
import { until } from "../support/until";

// Live call control end to end (docs/decisions.md §13): a built server of its own whose Twilio is this
// file's simulator, which holds calls up (plan `holdMs`) so commands find them live, runs the TwiML they
// send (dials with a planned result, whispers, recordings) and reports back, signed, to the engine.
let setup: SimulatedTwilioServer;
let twilio: TwilioSimulator;
let db: pg.Pool;
let backend: SimulatedTwilioServer["backend"];
const HOLD_MS = 20_000;

beforeAll(async () => {
  setup = await startSimulatedTwilioServer({ name: "it-control", database: "control", emailTag: "cc" });
  ({ twilio, db, backend } = setup);
});
afterAll(() => setup?.close());

type Customer = SimulatedCustomer;
const customer = () => setup.customer();
const numberBody = (phoneNumber: string) => setup.numberBody(phoneNumber);

/** A customer connected to a simulated Twilio account, with one number configured through the connection. */
async function connectedCustomer(numberFields: Record<string, unknown> = {}) {
  const c = await customer();
  const tw = twilio.addAccount({ friendlyName: "Acme Voice" });
  const number = randomUsNumber();
  twilio.addIncomingNumber(tw.sid, number);
  expect((await c.as("PUT", "/api/twilio-connection", { accountSid: tw.sid, authToken: tw.authToken })).status).toBe(
    200,
  );
  expect((await c.as("POST", "/api/phone-numbers", { ...numberBody(number), ...numberFields })).status).toBe(201);
  return { c, tw, number };
}

/** An inbound call to a connected customer's number, held up at the simulator; resolves once the engine answered it. */
async function liveInbound(s: { c: Customer; number: string }, plan: { holdMs?: number } = {}) {
  const callSid = newCallSid();
  const played = twilio.inboundCall({ to: s.number, from: randomUsNumber(), callSid, holdMs: plan.holdMs ?? HOLD_MS });
  await until(async () => {
    const r = await s.c.as("GET", `/api/calls/${callSid}`);
    // In progress at the simulator too: a command sent before Twilio acted on the engine's answer would
    // find the call still ringing there, where a hang-up cancels it (#40).
    return r.status === 200 && r.body.call.answer !== null && twilio.control.get(callSid)?.status === "in-progress";
  }, `inbound call ${callSid} answered`);
  return { callSid, played };
}

/** An outbound call placed through the API on the call's own credentials (no connection), answered and held up. */
async function liveOutbound() {
  const c = await customer();
  const tw = twilio.addAccount();
  const from = randomUsNumber();
  expect((await c.as("POST", "/api/phone-numbers", numberBody(from))).status).toBe(201);
  twilio.planNextCall({ holdMs: HOLD_MS });
  const res = await c.as("POST", "/api/outbound", {
    from,
    to: randomUsNumber(),
    onCallStartUrl: backend.url("/start"),
    onCallEndUrl: backend.url("/end"),
    providerAccountSid: tw.sid,
    providerAuthToken: tw.authToken,
  });
  expect(res.status).toBe(201);
  const callSid: string = res.body.callSid;
  await until(async () => {
    const r = await c.as("GET", `/api/calls/${callSid}`);
    return (
      r.status === 200 && r.body.call.status === "in-progress" && twilio.control.get(callSid)?.status === "in-progress"
    );
  }, `outbound call ${callSid} in progress`);
  return { c, tw, from, callSid };
}

const requestsFor = (callSid: string) => twilio.control.requests.filter((r) => r.path.includes(`/Calls/${callSid}`));

/** The events the backend received about a call, of a type (once each: deliveries are at least once). */
function eventsOf(callSid: string, type: string): any[] {
  const seen = new Map<string, any>();
  for (const r of backend.received) {
    if (!r.path.endsWith("/end")) continue;
    const e = JSON.parse(r.body);
    if (e.type === type && e.data?.callSid === callSid) seen.set(e.id, e);
  }
  return [...seen.values()];
}

async function finalStatus(c: Customer, callSid: string) {
  return until(async () => {
    const r = await c.as("GET", `/api/calls/${callSid}`);
    return r.body.call.endedAt !== null && r.body.call;
  }, `call ${callSid} ended`);
}

async function controlEnd(callSid: string): Promise<string | null> {
  const { rows } = await db.query(`SELECT "controlEnd" FROM "Call" WHERE "callSid" = $1`, [callSid]);
  return rows[0]?.controlEnd ?? null;
}

describe("hang up", () => {
  it("ends a connected account's live inbound call at Twilio; the timeline shows who, what, Twilio's answer and latency", async () => {
    const s = await connectedCustomer();
    const { callSid, played } = await liveInbound(s);
    const res = await s.c.as("POST", `/api/calls/${callSid}/hangup`);
    expect(res.status).toBe(200);
    const command = res.body.call.timeline.find((e: any) => e.type === "command");
    expect(command).toMatchObject({
      command: "hangup",
      actor: s.c.apiKey.slice(0, 12),
      outcome: "ok",
      providerStatus: 200,
      providerError: null,
    });
    expect(command.latencyMs).toBeGreaterThanOrEqual(0);
    expect(command.ownMs).toBeGreaterThanOrEqual(0);
    expect(requestsFor(callSid)).toEqual([
      expect.objectContaining({
        path: `/2010-04-01/Accounts/${s.tw.sid}/Calls/${callSid}.json`,
        params: { Status: "completed" },
      }),
    ]);
    await played;
    expect(twilio.control.get(callSid)?.endedBy).toBe("api");
    const ended = await finalStatus(s.c, callSid);
    expect(ended.status).toBe("completed");
    expect(await controlEnd(callSid)).toBe("hung-up-by-api");
    // The call and its call.ended say why it ended (docs/decisions.md §14).
    expect(ended.endReason).toBe("hung-up-by-api");
    const endedEvent = await until(
      () => eventsOf(callSid, "call.ended").length > 0 && eventsOf(callSid, "call.ended"),
      "call.ended",
    );
    expect(endedEvent[0].data.endReason).toBe("hung-up-by-api");
    // Ended: every command is now CALL_NOT_LIVE.
    const again = await s.c.as("POST", `/api/calls/${callSid}/hangup`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("CALL_NOT_LIVE");
  });

  it("ends an outbound call placed through the API, on the call's own credentials", async () => {
    const o = await liveOutbound();
    const res = await o.c.as("POST", `/api/calls/${o.callSid}/hangup`);
    expect(res.status).toBe(200);
    expect(requestsFor(o.callSid)).toEqual([
      expect.objectContaining({
        path: `/2010-04-01/Accounts/${o.tw.sid}/Calls/${o.callSid}.json`,
        params: { Status: "completed" },
      }),
    ]);
    const ended = await finalStatus(o.c, o.callSid);
    expect(ended.status).toBe("completed");
    expect(await controlEnd(o.callSid)).toBe("hung-up-by-api");
    expect(ended.endReason).toBe("hung-up-by-api");
  });

  it("with an Idempotency-Key, a retry replays the answer and Twilio is updated once", async () => {
    const s = await connectedCustomer();
    const { callSid } = await liveInbound(s);
    const key = { "idempotency-key": `hangup-${callSid}` };
    const first = await s.c.as("POST", `/api/calls/${callSid}/hangup`, undefined, key);
    const second = await s.c.as("POST", `/api/calls/${callSid}/hangup`, undefined, key);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body).toEqual(first.body);
    expect(requestsFor(callSid)).toHaveLength(1);
  });
});

// #40: a hang-up always asks Twilio for Status=completed, and the simulator ends a call on it only where
// Twilio would (canceled leaves a call in progress up). So the call is over at Twilio, not just in
// Routekit's rows, whatever state it was in.
describe("hang up ends the call at Twilio", () => {
  /** Twilio's record of the call once it is no longer up (the simulator's one state for it). */
  const overAtTwilio = (accountSid: string, callSid: string) =>
    until(() => {
      const record = twilio.callRecords.get(accountSid, callSid);
      return record && !["queued", "ringing", "in-progress"].includes(record.status) && record;
    }, `call ${callSid} over at Twilio`);

  it("an inbound call in progress on a connected account: completed, with its duration", async () => {
    const s = await connectedCustomer();
    const { callSid, played } = await liveInbound(s);
    expect(twilio.callRecords.get(s.tw.sid, callSid)?.status).toBe("in-progress");
    expect((await s.c.as("POST", `/api/calls/${callSid}/hangup`)).status).toBe(200);
    expect(requestsFor(callSid).map((r) => r.params)).toEqual([{ Status: "completed" }]);
    const record = await overAtTwilio(s.tw.sid, callSid);
    expect(record).toMatchObject({ status: "completed", duration: 5 });
    expect((await played).statusCallbacks.map((c) => c.status)).toEqual(["completed"]);
    const ended = await finalStatus(s.c, callSid);
    expect(ended).toMatchObject({ status: "completed", endReason: "hung-up-by-api" });
  });

  it("an outbound call still ringing: Twilio cancels it, it is never answered", async () => {
    const c = await customer();
    const tw = twilio.addAccount();
    const from = randomUsNumber();
    expect((await c.as("POST", "/api/phone-numbers", numberBody(from))).status).toBe(201);
    twilio.planNextCall({ ringMs: HOLD_MS });
    const res = await c.as("POST", "/api/outbound", {
      from,
      to: randomUsNumber(),
      onCallStartUrl: backend.url("/start"),
      onCallEndUrl: backend.url("/end"),
      providerAccountSid: tw.sid,
      providerAuthToken: tw.authToken,
    });
    expect(res.status).toBe(201);
    const callSid: string = res.body.callSid;
    await until(async () => {
      const r = await c.as("GET", `/api/calls/${callSid}`);
      return r.body.call?.status === "ringing" && twilio.control.get(callSid)?.status === "ringing";
    }, `outbound call ${callSid} ringing`);
    expect((await c.as("POST", `/api/calls/${callSid}/hangup`)).status).toBe(200);
    expect(requestsFor(callSid).map((r) => r.params)).toEqual([{ Status: "completed" }]);
    expect(await overAtTwilio(tw.sid, callSid)).toMatchObject({ status: "canceled", duration: 0 });
    const played = await twilio.calls.find((p) => p.callSid === callSid)!.played;
    expect(played.answer).toBeNull();
    expect(played.statusCallbacks.map((cb) => cb.status)).toEqual(["initiated", "ringing", "canceled"]);
    const ended = await finalStatus(c, callSid);
    expect(ended).toMatchObject({ status: "canceled", endReason: "hung-up-by-api" });
    expect(await controlEnd(callSid)).toBe("hung-up-by-api");
  });

  it("an outbound call in progress: completed, with its duration", async () => {
    const o = await liveOutbound();
    expect((await o.c.as("POST", `/api/calls/${o.callSid}/hangup`)).status).toBe(200);
    expect(requestsFor(o.callSid).map((r) => r.params)).toEqual([{ Status: "completed" }]);
    expect(await overAtTwilio(o.tw.sid, o.callSid)).toMatchObject({ status: "completed", duration: 5 });
    const ended = await finalStatus(o.c, o.callSid);
    expect(ended).toMatchObject({ status: "completed", endReason: "hung-up-by-api" });
  });
});

describe("redirect", () => {
  it("gives a live inbound call new actions (Twilio's call update with Twiml)", async () => {
    const s = await connectedCustomer();
    const { callSid } = await liveInbound(s);
    const res = await s.c.as("POST", `/api/calls/${callSid}/redirect`, {
      actions: [{ say: "Please hold" }, { pause: 30 }],
    });
    expect(res.status).toBe(200);
    const sent = requestsFor(callSid)[0]!.params.Twiml!;
    expect(sent).toContain("<Say>Please hold</Say>");
    await until(() => twilio.control.get(callSid)!.documents.includes(sent), "the simulator ran the TwiML");
    // A <Pause> keeps the caller up: the call is still live.
    expect(twilio.control.get(callSid)!.endedBy).toBeNull();
    const command = res.body.call.timeline.find((e: any) => e.type === "command");
    expect(command).toMatchObject({ command: "redirect", details: { twiml: sent } });
    await s.c.as("POST", `/api/calls/${callSid}/hangup`);
  });

  it("gives a live outbound call a TwiML document; an invalid one is 400 and reaches nobody", async () => {
    const o = await liveOutbound();
    const bad = await o.c.as("POST", `/api/calls/${o.callSid}/redirect`, {
      twiml: "<Response><Say>unclosed</Response>",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_FAILED");
    const both = await o.c.as("POST", `/api/calls/${o.callSid}/redirect`, {
      twiml: "<Response/>",
      actions: [{ hangup: true }],
    });
    expect(both.status).toBe(400);
    expect(requestsFor(o.callSid)).toHaveLength(0);
    const twiml = "<Response><Say>Goodbye</Say><Hangup/></Response>";
    const res = await o.c.as("POST", `/api/calls/${o.callSid}/redirect`, { twiml });
    expect(res.status).toBe(200);
    expect(requestsFor(o.callSid)[0]!.params).toEqual({ Twiml: twiml });
    // The document hangs up: Twilio ends the call and reports it.
    const ended = await finalStatus(o.c, o.callSid);
    expect(ended.status).toBe("completed");
    expect(twilio.control.get(o.callSid)!.endedBy).toBe("twiml");
  });
});

describe("transfer", () => {
  it("connects a live inbound call with a whisper to the callee: call.transferred, and the call ends with the conversation", async () => {
    const s = await connectedCustomer();
    const { callSid, played } = await liveInbound(s);
    const to = randomUsNumber();
    twilio.control.planNextDial({ status: "completed", durationSeconds: 42 });
    const res = await s.c.as("POST", `/api/calls/${callSid}/transfer`, { to, whisper: "Order A-17 on the line" });
    expect(res.status).toBe(200);
    // The answer shows the command with Twilio's answer, not the row recorded before Twilio was asked.
    expect(res.body.call.timeline.find((e: any) => e.type === "command")).toMatchObject({
      command: "transfer",
      outcome: "ok",
      providerStatus: 200,
    });
    const twiml = requestsFor(callSid)[0]!.params.Twiml!;
    expect(twiml).toMatch(/<Dial action="[^"]+control=dial[^"]+" method="POST" timeout="20" callerId="\+1\d+">/);
    expect(twiml).toContain(`>${to}</Number>`);
    const dial = await until(
      () => twilio.control.get(callSid)!.dials[0]?.action && twilio.control.get(callSid)!.dials[0],
      "the dial ran",
    );
    expect(dial.to).toBe(to);
    expect(dial.callerId).toBe(s.number);
    expect(dial.whisper?.status).toBe(200);
    expect(dial.whisper?.body).toContain("<Say>Order A-17 on the line</Say>");
    expect(dial.action?.status).toBe(200);
    expect(dial.action?.body).toContain("<Hangup/>");
    await played;
    const [event] = await until(
      () => eventsOf(callSid, "call.transferred").length > 0 && eventsOf(callSid, "call.transferred"),
      "call.transferred",
    );
    expect(event.data).toEqual({
      callSid,
      to,
      dialCallStatus: "completed",
      dialCallSid: dial.dialCallSid,
      dialCallDurationSeconds: 42,
      phoneNumberId: expect.any(String),
    });
    await checkEventContract(event);
    const call = await finalStatus(s.c, callSid);
    expect(call.timeline.find((e: any) => e.type === "transfer")).toMatchObject({
      to,
      dialCallStatus: "completed",
      transferred: true,
      dialCallDurationSeconds: 42,
    });
    expect(await controlEnd(callSid)).toBe("transferred");
    expect(call.endReason).toBe("transferred");
  });

  it("a transfer of an outbound call that is not answered keeps the caller on the line with onFailure: call.transfer_failed", async () => {
    const o = await liveOutbound();
    twilio.control.planNextDial({ status: "no-answer" });
    const res = await o.c.as("POST", `/api/calls/${o.callSid}/transfer`, {
      to: "sip:agent@pbx.example.com",
      timeout: 5,
      onFailure: [{ say: "Nobody is free; please stay on the line" }, { pause: 30 }],
    });
    expect(res.status).toBe(200);
    expect(requestsFor(o.callSid)[0]!.params.Twiml).toContain('timeout="5"');
    expect(requestsFor(o.callSid)[0]!.params.Twiml).toContain("<Sip>sip:agent@pbx.example.com</Sip>");
    const dial = await until(
      () => twilio.control.get(o.callSid)!.dials[0]?.action && twilio.control.get(o.callSid)!.dials[0],
      "the dial ran",
    );
    // The answer to the dial action is the onFailure actions: the caller hears them and stays.
    expect(dial.action?.body).toContain("<Say>Nobody is free; please stay on the line</Say>");
    expect(dial.action?.body).toContain('<Pause length="30"/>');
    expect(dial.whisper).toBeNull();
    const [event] = await until(
      () => eventsOf(o.callSid, "call.transfer_failed").length > 0 && eventsOf(o.callSid, "call.transfer_failed"),
      "call.transfer_failed",
    );
    expect(event.data).toEqual({
      callSid: o.callSid,
      to: "sip:agent@pbx.example.com",
      dialCallStatus: "no-answer",
      phoneNumberId: expect.any(String),
    });
    await checkEventContract(event);
    expect(twilio.control.get(o.callSid)!.endedBy).toBeNull();
    const still = await o.c.as("GET", `/api/calls/${o.callSid}`);
    expect(still.body.call.endedAt).toBeNull();
    expect(still.body.call.timeline.find((e: any) => e.type === "transfer")).toMatchObject({ transferred: false });
    expect(await controlEnd(o.callSid)).toBeNull();
    // Still controllable: the caller is there to be hung up on.
    expect((await o.c.as("POST", `/api/calls/${o.callSid}/hangup`)).status).toBe(200);
  });

  it("a busy callee without onFailure gets the built-in apology, never silence", async () => {
    const s = await connectedCustomer();
    const { callSid } = await liveInbound(s);
    twilio.control.planNextDial({ status: "busy" });
    expect((await s.c.as("POST", `/api/calls/${callSid}/transfer`, { to: randomUsNumber() })).status).toBe(200);
    const dial = await until(
      () => twilio.control.get(callSid)!.dials[0]?.action && twilio.control.get(callSid)!.dials[0],
      "the dial ran",
    );
    expect(dial.action?.body).toContain("<Say>");
    expect(dial.action?.body).toContain("<Hangup/>");
    await until(() => eventsOf(callSid, "call.transfer_failed").length > 0, "call.transfer_failed");
  });

  it("a failed transfer without onFailure plays the number's lastResort (docs/decisions.md §13)", async () => {
    const s = await connectedCustomer({
      lastResort: { actions: [{ say: "Our team will call you back" }, { hangup: true }] },
    });
    const { callSid } = await liveInbound(s);
    twilio.control.planNextDial({ status: "no-answer" });
    expect((await s.c.as("POST", `/api/calls/${callSid}/transfer`, { to: randomUsNumber() })).status).toBe(200);
    const dial = await until(
      () => twilio.control.get(callSid)!.dials[0]?.action && twilio.control.get(callSid)!.dials[0],
      "the dial ran",
    );
    expect(dial.action?.body).toContain("<Say>Our team will call you back</Say>");
    await until(() => eventsOf(callSid, "call.transfer_failed").length > 0, "call.transfer_failed");
  });

  it("a forged dial result is refused with 403 and changes nothing", async () => {
    const s = await connectedCustomer();
    const { callSid } = await liveInbound(s);
    twilio.control.planNextDial({ status: "busy", delayMs: 3_000 });
    expect((await s.c.as("POST", `/api/calls/${callSid}/transfer`, { to: randomUsNumber() })).status).toBe(200);
    const action = /action="([^"]+)"/.exec(requestsFor(callSid)[0]!.params.Twiml!)![1]!.replaceAll("&amp;", "&");
    const forged = await fetch(action.replace(/^https?:\/\/[^/]+/, setup.server.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": "bm9wZQ==" },
      body: new URLSearchParams({
        CallSid: callSid,
        AccountSid: s.tw.sid,
        CallStatus: "in-progress",
        DialCallStatus: "completed",
      }),
    });
    expect(forged.status).toBe(403);
    expect(await controlEnd(callSid)).toBeNull();
    await s.c.as("POST", `/api/calls/${callSid}/hangup`);
  });

  it("checks its input: timeout 5–60, a number or sip: URI, a callerId of the account", async () => {
    const s = await connectedCustomer();
    const { callSid } = await liveInbound(s);
    for (const body of [
      { to: randomUsNumber(), timeout: 61 },
      { to: randomUsNumber(), timeout: 4 },
      { to: "12345" },
      { to: randomUsNumber(), onFailure: [{ sing: "la" }] },
    ]) {
      const r = await s.c.as("POST", `/api/calls/${callSid}/transfer`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    const notOurs = await s.c.as("POST", `/api/calls/${callSid}/transfer`, {
      to: randomUsNumber(),
      callerId: randomUsNumber(),
    });
    expect(notOurs.status).toBe(403);
    expect(notOurs.body.error.code).toBe("NUMBER_NOT_OWNED");
    expect(requestsFor(callSid)).toHaveLength(0);
    await s.c.as("POST", `/api/calls/${callSid}/hangup`);
  });
});

describe("recording", () => {
  it("starts, pauses, resumes and stops a recording of a live inbound call; recording.completed follows", async () => {
    const s = await connectedCustomer();
    const { callSid } = await liveInbound(s);
    const start = await s.c.as("POST", `/api/calls/${callSid}/recording`, { action: "start" });
    expect(start.status).toBe(200);
    expect(start.body.recording).toEqual({ sid: expect.stringMatching(/^RE[0-9a-f]{32}$/), status: "in-progress" });
    const recordingSid = start.body.recording.sid;
    const create = requestsFor(callSid)[0]!;
    expect(create.path).toBe(`/2010-04-01/Accounts/${s.tw.sid}/Calls/${callSid}/Recordings.json`);
    expect(create.params).toMatchObject({ RecordingChannels: "dual", RecordingStatusCallbackMethod: "POST" });
    expect(create.params.RecordingStatusCallback).toContain("control=recording");

    for (const [action, status] of [
      ["pause", "paused"],
      ["resume", "in-progress"],
      ["stop", "stopped"],
    ] as const) {
      const r = await s.c.as("POST", `/api/calls/${callSid}/recording`, { action });
      expect(r.status, action).toBe(200);
      expect(r.body.recording).toEqual({ sid: recordingSid, status });
    }
    expect(
      requestsFor(callSid)
        .slice(1)
        .map((r) => [r.path.endsWith(`/Recordings/${recordingSid}.json`), r.params.Status]),
    ).toEqual([
      [true, "paused"],
      [true, "in-progress"],
      [true, "stopped"],
    ]);
    const [event] = await until(
      () => eventsOf(callSid, "recording.completed").length > 0 && eventsOf(callSid, "recording.completed"),
      "recording.completed",
    );
    expect(event.data).toEqual({
      callSid,
      recordingSid,
      url: `${twilio.url}/2010-04-01/Accounts/${s.tw.sid}/Recordings/${recordingSid}`,
      durationSeconds: expect.any(Number),
      channels: 2,
      phoneNumberId: expect.any(String),
    });
    await checkEventContract(event);
    const call = (await s.c.as("GET", `/api/calls/${callSid}`)).body.call;
    expect(call.recordings).toEqual([
      expect.objectContaining({ sid: recordingSid, status: "completed", channels: 2, url: event.data.url }),
    ]);
    expect(call.timeline.filter((e: any) => e.type === "command").map((e: any) => e.command)).toEqual([
      "recording.start",
      "recording.pause",
      "recording.resume",
      "recording.stop",
    ]);
    // Nothing left to pause.
    expect((await s.c.as("POST", `/api/calls/${callSid}/recording`, { action: "pause" })).status).toBe(404);
    await s.c.as("POST", `/api/calls/${callSid}/hangup`);
  });

  it("records an outbound call in mono; a recording cut short by the call's end still completes", async () => {
    const o = await liveOutbound();
    const start = await o.c.as("POST", `/api/calls/${o.callSid}/recording`, { action: "start", channels: "mono" });
    expect(start.status).toBe(200);
    expect(requestsFor(o.callSid)[0]!.params.RecordingChannels).toBe("mono");
    await o.c.as("POST", `/api/calls/${o.callSid}/hangup`);
    const [event] = await until(
      () => eventsOf(o.callSid, "recording.completed").length > 0 && eventsOf(o.callSid, "recording.completed"),
      "recording.completed",
    );
    expect(event.data.channels).toBe(1);
    // The call's own token is gone with the call; the recording's was cleared with its final status.
    const { rows } = await db.query(`SELECT "providerAuthTokenEnc" FROM "CallRecording" WHERE "recordingSid" = $1`, [
      start.body.recording.sid,
    ]);
    expect(rows[0].providerAuthTokenEnc).toBeNull();
  });

  it("a recording Twilio reports absent is recording.failed", async () => {
    const s = await connectedCustomer();
    const { callSid } = await liveInbound(s);
    twilio.control.planNextRecording({ outcome: "absent" });
    const start = await s.c.as("POST", `/api/calls/${callSid}/recording`, { action: "start" });
    await s.c.as("POST", `/api/calls/${callSid}/recording`, { action: "stop" });
    const [event] = await until(
      () => eventsOf(callSid, "recording.failed").length > 0 && eventsOf(callSid, "recording.failed"),
      "recording.failed",
    );
    expect(event.data).toMatchObject({
      recordingSid: start.body.recording.sid,
      status: "absent",
      url: null,
      channels: 2,
    });
    await checkEventContract(event);
    await s.c.as("POST", `/api/calls/${callSid}/hangup`);
  });
});

describe("errors", () => {
  it("an unknown call, or another account's, is 404", async () => {
    const s = await connectedCustomer();
    const { callSid } = await liveInbound(s);
    const other = await customer();
    for (const cmd of ["hangup", "redirect", "transfer", "recording"]) {
      const body = {
        redirect: { actions: [{ hangup: true }] },
        transfer: { to: randomUsNumber() },
        recording: { action: "start" },
      }[cmd];
      const theirs = await other.as("POST", `/api/calls/${callSid}/${cmd}`, body);
      expect(theirs.status, cmd).toBe(404);
      const unknown = await s.c.as("POST", `/api/calls/${newCallSid()}/${cmd}`, body);
      expect(unknown.status, cmd).toBe(404);
    }
    expect(requestsFor(callSid)).toHaveLength(0);
    await s.c.as("POST", `/api/calls/${callSid}/hangup`);
  });

  it("a live call Routekit holds no credentials for is CALL_NOT_CONTROLLABLE; once ended, CALL_NOT_LIVE comes first", async () => {
    const c = await customer();
    const number = randomUsNumber();
    expect((await c.as("POST", "/api/phone-numbers", numberBody(number))).status).toBe(201);
    const callSid = newCallSid();
    const played = simulateInboundCall({
      engineUrl: c.engineVoiceUrl,
      from: randomUsNumber(),
      to: number,
      callSid,
      holdMs: 1_500,
      liveCalls: twilio.control,
      callRecords: twilio.callRecords,
    });
    await until(async () => (await c.as("GET", `/api/calls/${callSid}`)).body?.call?.answer, "answered");
    const res = await c.as("POST", `/api/calls/${callSid}/hangup`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("CALL_NOT_CONTROLLABLE");
    expect(res.body.error.message).toMatch(/connect/i);
    await played;
    await finalStatus(c, callSid);
    const ended = await c.as("POST", `/api/calls/${callSid}/hangup`);
    expect(ended.body.error.code).toBe("CALL_NOT_LIVE");
  });

  it("a call that has not been answered is CALL_NOT_LIVE for redirect, transfer and recording", async () => {
    const s = await connectedCustomer();
    const callSid = newCallSid();
    await seeds(db).call({ callSid, accountId: s.c.id, toNumber: s.number, status: "ringing", statusRank: 2 });
    for (const [cmd, body] of [
      ["redirect", { actions: [{ hangup: true }] }],
      ["transfer", { to: randomUsNumber() }],
      ["recording", { action: "start" }],
    ] as const) {
      const r = await s.c.as("POST", `/api/calls/${callSid}/${cmd}`, body);
      expect(r.status, cmd).toBe(409);
      expect(r.body.error.code, cmd).toBe("CALL_NOT_LIVE");
    }
  });

  it("Twilio refusing (the call ended there, its final status not yet here) is 400 PROVIDER_REJECTED with Twilio's code", async () => {
    const s = await connectedCustomer();
    const callSid = newCallSid();
    // No status callback: the call ends at Twilio and Routekit is not told (until reconciliation).
    const played = simulateInboundCall({
      engineUrl: s.c.engineVoiceUrl,
      statusCallbackUrl: null,
      from: randomUsNumber(),
      to: s.number,
      callSid,
      accountSid: s.tw.sid,
      authToken: s.tw.authToken,
      holdMs: 200,
      liveCalls: twilio.control,
      callRecords: twilio.callRecords,
    });
    await played;
    await until(async () => (await s.c.as("GET", `/api/calls/${callSid}`)).body?.call?.answer, "answered");
    const res = await s.c.as("POST", `/api/calls/${callSid}/redirect`, { actions: [{ say: "Hello?" }] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("PROVIDER_REJECTED");
    expect(res.body.error.details).toEqual([
      { path: "provider", message: "21220: Call is not in-progress. Cannot redirect." },
    ]);
    const call = (await s.c.as("GET", `/api/calls/${callSid}`)).body.call;
    expect(call.timeline.find((e: any) => e.type === "command")).toMatchObject({
      command: "redirect",
      outcome: "refused",
      providerStatus: 400,
      providerError: { code: 21220, message: "Call is not in-progress. Cannot redirect." },
    });
  });

  it("Twilio unreachable is 502 PROVIDER_UNAVAILABLE, in the timeline too; a retry with the same key runs again", async () => {
    const s = await connectedCustomer();
    const { callSid } = await liveInbound(s);
    twilio.control.outage(1);
    const key = { "idempotency-key": `outage-${callSid}` };
    const res = await s.c.as("POST", `/api/calls/${callSid}/hangup`, undefined, key);
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe("PROVIDER_UNAVAILABLE");
    // Not hung up: nothing says it will end by the API.
    expect(await controlEnd(callSid)).toBeNull();
    const retry = await s.c.as("POST", `/api/calls/${callSid}/hangup`, undefined, key);
    expect(retry.status).toBe(200);
    expect(await controlEnd(callSid)).toBe("hung-up-by-api");
    expect(requestsFor(callSid)).toHaveLength(2);
    expect(retry.body.call.timeline.filter((e: any) => e.type === "command").map((e: any) => e.outcome)).toEqual([
      "unavailable",
      "ok",
    ]);
  });
});
