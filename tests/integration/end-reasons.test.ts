import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  newCallSid,
  postSigned,
  simulateInboundCall,
  startTwilioSimulator,
  type TwilioSimulator,
} from "../../src/twilio-simulator/twilio-simulator";
import { newActiveAccount, numberBody, randomUsNumber, suspend, type TestAccount, seed } from "../support/api";
import { startReceiver, type Received } from "../support/receiver";
import { until } from "../support/until";

// docs/decisions.md §14 and §22: every call says why it ended, with Twilio's carrier codes when it sent them,
// in the API and in call.ended. (reconciled and no-final-status: reconciliation.test.ts, no-final-status.test.ts.)
const TWILIO_SID = `AC${"3".repeat(32)}`;
const TWILIO_TOKEN = "simulator-auth-token";
const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Hello</Say></Response>';

let twilio: TwilioSimulator;
let backend: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  twilio = await startTwilioSimulator({
    accounts: { [TWILIO_SID]: TWILIO_TOKEN },
    port: 0,
    host: "127.0.0.1",
  });
  backend = await startReceiver((r: Received, res) => {
    if (r.path.endsWith("/start")) return res.writeHead(200, { "content-type": "text/xml" }).end(XML);
    res.writeHead(200).end("ok");
  });
});
afterAll(async () => {
  await twilio?.close();
  await backend?.close();
});

type Setup = { account: TestAccount; number: string; numberId: string; tag: string };

async function setup(account?: TestAccount): Promise<Setup> {
  const acc = account ?? (await newActiveAccount({ server: "permissive" }));
  const tag = `${acc.id}-${Math.random().toString(36).slice(2, 8)}`;
  const number = randomUsNumber();
  const res = await acc.as("POST", "/api/phone-numbers", {
    body: numberBody({
      phoneNumber: number,
      onCallStartUrl: backend.url(`/${tag}/start`),
      onCallEndUrl: backend.url(`/${tag}/end`),
      onErrorUrl: backend.url(`/${tag}/error`),
    }),
  });
  expect(res.status).toBe(201);
  return { account: acc, number, numberId: res.body.phoneNumber.id, tag };
}

const events = (path: string) => backend.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body));

async function endedCall(account: TestAccount, callSid: string) {
  return until(async () => {
    const res = await account.as("GET", `/api/calls/${callSid}`);
    return res.status === 200 && res.body.call.endedAt !== null && res.body.call.endReason !== null && res.body.call;
  }, `call ${callSid} ended`);
}

async function callEnded(s: Setup, callSid: string) {
  const [event] = await until(() => {
    const found = events(`/${s.tag}/end`).filter((e) => e.data.callSid === callSid);
    return found.length > 0 && found;
  }, `call.ended of ${callSid}`);
  return event;
}

const base = (s: Setup, CallSid: string) => ({
  CallSid,
  AccountSid: TWILIO_SID,
  From: "+14155550100",
  To: s.number,
  Direction: "inbound",
});

describe("endReason: Twilio's final status", () => {
  it("completed, busy, no-answer and canceled calls end with that reason; no carrier codes when Twilio sent none", async () => {
    const s = await setup();
    for (const outcome of ["completed", "busy", "no-answer", "canceled"] as const) {
      const played = await simulateInboundCall({
        engineUrl: s.account.engineVoiceUrl,
        from: "+14155550100",
        to: s.number,
        outcome,
        durationSeconds: 61,
        stepDelayMs: 0,
      });
      const call = await endedCall(s.account, played.callSid);
      expect(call).toMatchObject({ status: outcome, endReason: outcome, sipResponseCode: null, errorCode: null });
      const event = await callEnded(s, played.callSid);
      expect(event.data).toMatchObject({ status: outcome, endReason: outcome, sipResponseCode: null, errorCode: null });
      if (outcome === "completed") expect(event.data.billedMinutes).toBe(2);
    }
    // The list carries them too.
    const listed = await s.account.as("GET", "/api/calls");
    expect(listed.body.calls.map((c: any) => c.endReason).sort()).toEqual([
      "busy",
      "canceled",
      "completed",
      "no-answer",
    ]);
  });

  it("a failed call keeps Twilio's SipResponseCode and ErrorCode, in the API and in call.ended", async () => {
    const s = await setup();
    const played = await simulateInboundCall({
      engineUrl: s.account.engineVoiceUrl,
      from: "+14155550100",
      to: s.number,
      outcome: "failed",
      sipResponseCode: 404,
      errorCode: 13224,
      stepDelayMs: 0,
    });
    expect(played.statusCallbacks).toEqual([{ status: "failed", httpStatus: 200 }]);
    const call = await endedCall(s.account, played.callSid);
    expect(call).toMatchObject({
      status: "failed",
      endReason: "failed",
      sipResponseCode: 404,
      errorCode: 13224,
      error: { code: "CALL_FAILED" },
      billedMinutes: 0,
    });
    const event = await callEnded(s, played.callSid);
    expect(event.data).toMatchObject({ status: "failed", endReason: "failed", sipResponseCode: 404, errorCode: 13224 });
  });

  it("a busy call keeps the carrier's SIP 486 as sent", async () => {
    const s = await setup();
    const CallSid = newCallSid();
    await postSigned(s.account.engineVoiceUrl, { ...base(s, CallSid), CallStatus: "ringing" }, TWILIO_TOKEN);
    const res = await postSigned(
      s.account.engineVoiceUrl,
      { ...base(s, CallSid), CallStatus: "busy", SipResponseCode: "486", CallbackSource: "call-progress-events" },
      TWILIO_TOKEN,
    );
    expect(res.status).toBe(200);
    expect(await endedCall(s.account, CallSid)).toMatchObject({
      endReason: "busy",
      sipResponseCode: 486,
      errorCode: null,
    });
  });

  it("malformed carrier codes are refused with 400 and change nothing", async () => {
    const s = await setup();
    const CallSid = newCallSid();
    await postSigned(s.account.engineVoiceUrl, { ...base(s, CallSid), CallStatus: "ringing" }, TWILIO_TOKEN);
    for (const bad of <Record<string, string>[]>[
      { SipResponseCode: "99" },
      { SipResponseCode: "4860" },
      { ErrorCode: "-1" },
      { ErrorCode: "1e5" },
    ]) {
      const res = await postSigned(
        s.account.engineVoiceUrl,
        { ...base(s, CallSid), CallStatus: "failed", CallbackSource: "call-progress-events", ...bad },
        TWILIO_TOKEN,
      );
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(JSON.parse(res.body).error.code).toBe("VALIDATION_FAILED");
    }
    const open = await s.account.as("GET", `/api/calls/${CallSid}`);
    expect(open.body.call).toMatchObject({ endedAt: null, endReason: null, sipResponseCode: null, errorCode: null });
  });
});

describe("endReason: Routekit's decisions", () => {
  it("a call to an unregistered number ends rejected with not-registered", async () => {
    const s = await setup();
    const to = randomUsNumber();
    const played = await simulateInboundCall({
      engineUrl: s.account.engineVoiceUrl,
      from: "+14155550100",
      to,
      stepDelayMs: 0,
    });
    expect(played.answer!.body).toContain("<Reject/>");
    const call = await endedCall(s.account, played.callSid);
    expect(call).toMatchObject({
      status: "rejected",
      answer: "reject",
      endReason: "not-registered",
      error: { code: "NUMBER_NOT_REGISTERED" },
    });
  });

  it("an inactive account's calls end account-inactive, a suspended one's account-suspended", async () => {
    for (const standing of ["INACTIVE", "SUSPENDED"] as const) {
      const s = await setup();
      if (standing === "SUSPENDED") await suspend(s.account);
      else await seed("permissive").update("Account", { id: s.account.id }, { status: "INACTIVE" });
      const played = await simulateInboundCall({
        engineUrl: s.account.engineVoiceUrl,
        from: "+14155550100",
        to: s.number,
        stepDelayMs: 0,
      });
      expect(played.answer!.body).toContain("<Reject/>");
      // The list is read with an API key, which works in any standing.
      const call = await endedCall(s.account, played.callSid);
      expect(call).toMatchObject({
        status: "rejected",
        endReason: standing === "SUSPENDED" ? "account-suspended" : "account-inactive",
        error: { code: standing === "SUSPENDED" ? "ACCOUNT_SUSPENDED" : "PAYMENT_REQUIRED" },
      });
      expect(call.endedAt).not.toBeNull();
    }
  });

  it("the account's standing decides before the number: an unpaid or suspended account's call to an unknown number", async () => {
    // docs/decisions.md §14: standing first, then not-registered, then the limits of §17.
    for (const standing of ["INACTIVE", "SUSPENDED", "ACTIVE"] as const) {
      const s = await setup();
      if (standing === "SUSPENDED") await suspend(s.account);
      else if (standing === "INACTIVE")
        await seed("permissive").update("Account", { id: s.account.id }, { status: "INACTIVE" });
      const played = await simulateInboundCall({
        engineUrl: s.account.engineVoiceUrl,
        from: "+14155550100",
        to: randomUsNumber(),
        stepDelayMs: 0,
      });
      expect(played.answer!.body).toContain("<Reject/>");
      const call = await endedCall(s.account, played.callSid);
      const expected = {
        INACTIVE: { endReason: "account-inactive", code: "PAYMENT_REQUIRED" },
        SUSPENDED: { endReason: "account-suspended", code: "ACCOUNT_SUSPENDED" },
        ACTIVE: { endReason: "not-registered", code: "NUMBER_NOT_REGISTERED" },
      }[standing];
      expect(call, standing).toMatchObject({
        status: "rejected",
        phoneNumberId: null,
        endReason: expected.endReason,
        error: { code: expected.code },
      });
    }
  });
});

describe("the filter and the shape", () => {
  it("a live call has no endReason yet; status=unknown is a valid filter", async () => {
    const s = await setup();
    const CallSid = newCallSid();
    await postSigned(s.account.engineVoiceUrl, { ...base(s, CallSid), CallStatus: "ringing" }, TWILIO_TOKEN);
    const live = await until(async () => {
      const res = await s.account.as("GET", `/api/calls/${CallSid}`);
      return res.status === 200 && res.body.call;
    }, "live call");
    expect(live).toMatchObject({ endReason: null, sipResponseCode: null, errorCode: null, endedAt: null });
    const unknown = await s.account.as("GET", "/api/calls?status=unknown");
    expect(unknown.status).toBe(200);
    expect(unknown.body.calls).toEqual([]);
  });
});
