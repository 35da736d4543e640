import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import twilio from "twilio";
import type RequestClient from "twilio/lib/base/RequestClient";
import { afterEach, describe, expect, it } from "vitest";
import {
  newCallSid,
  postSigned,
  rfc2822,
  SIMULATOR_ACCOUNT_SID,
  simulateInboundCall,
  startTwilioSimulator,
  type TwilioSimulator,
} from "../../src/twilio-simulator/twilio-simulator";

const ACCOUNT = `AC${"1".repeat(32)}`;
const TOKEN = "a".repeat(32);
const OTHER_ACCOUNT = `AC${"2".repeat(32)}`;
const OTHER_TOKEN = "b".repeat(32);
const RFC2822 = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} \+0000$/;
const TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response><Dial>+14155550199</Dial></Response>';

type Hit = {
  path: string;
  url: string;
  params: Record<string, string>;
  signature: string;
  contentType: string | undefined;
};
type Reply = (hit: Hit) => { status?: number; body?: string; contentType?: string };

/** A stand-in for Routekit's engine: records every request and answers TwiML. */
async function startEngine(reply: Reply = () => ({ body: TWIML })) {
  const hits: Hit[] = [];
  let answer = reply;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const params = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
      const hit: Hit = {
        path: req.url ?? "/",
        url: `${base}${req.url ?? "/"}`,
        params,
        signature: String(req.headers["x-twilio-signature"] ?? ""),
        contentType: req.headers["content-type"],
      };
      hits.push(hit);
      const r = answer(hit);
      res.writeHead(r.status ?? 200, { "Content-Type": r.contentType ?? "text/xml" });
      res.end(r.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path: string) => `${base}${path}`,
    hits,
    answer(next: Reply) {
      answer = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
type Engine = Awaited<ReturnType<typeof startEngine>>;

/** How the service points the official SDK at the simulator: rewrite the origin of every request. */
class SimulatorRequestClient extends twilio.RequestClient {
  constructor(private readonly baseUrl: string) {
    super();
  }
  override request<TData>(opts: RequestClient.RequestOptions<TData>) {
    return super.request({ ...opts, uri: opts.uri.replace(/^https:\/\/api\.twilio\.com/, this.baseUrl) });
  }
}

function sdk(sim: TwilioSimulator, accountSid = ACCOUNT, authToken = TOKEN) {
  return twilio(accountSid, authToken, { httpClient: new SimulatorRequestClient(sim.url) });
}

function expectSigned(hit: Hit, token = TOKEN) {
  expect(hit.contentType).toBe("application/x-www-form-urlencoded");
  expect(twilio.validateRequest(token, hit.signature, hit.url, hit.params), `signature of ${hit.url}`).toBe(true);
}

let sim: TwilioSimulator | undefined;
let engine: Engine | undefined;
afterEach(async () => {
  await sim?.close();
  await engine?.close();
  sim = undefined;
  engine = undefined;
});

async function setup(opts: { acceptAnyCredentials?: boolean } = {}) {
  engine = await startEngine();
  sim = await startTwilioSimulator({ accounts: { [ACCOUNT]: TOKEN, [OTHER_ACCOUNT]: OTHER_TOKEN }, ...opts });
  return { engine, sim };
}

describe("REST: Calls.create through the official twilio SDK", () => {
  it("creates a queued outbound-api call and records its form params", async () => {
    const { engine, sim } = await setup();
    const call = await sdk(sim).calls.create({
      to: "+14155550123",
      from: "+14155550100",
      url: engine.url("/answer"),
      method: "POST",
      statusCallback: engine.url("/status"),
      statusCallbackEvent: ["initiated", "completed"],
      statusCallbackMethod: "POST",
      timeout: 30,
      machineDetection: "Enable",
    });
    expect(call.sid).toMatch(/^CA[0-9a-f]{32}$/);
    expect(call).toMatchObject({
      accountSid: ACCOUNT,
      to: "+14155550123",
      from: "+14155550100",
      status: "queued",
      direction: "outbound-api",
      apiVersion: "2010-04-01",
      uri: `/2010-04-01/Accounts/${ACCOUNT}/Calls/${call.sid}.json`,
    });
    expect(call.dateCreated).toBeInstanceOf(Date);
    expect(Number.isNaN(call.dateCreated.getTime())).toBe(false);

    expect(sim.calls).toHaveLength(1);
    const recorded = sim.calls[0]!;
    expect(recorded.callSid).toBe(call.sid);
    expect(recorded.accountSid).toBe(ACCOUNT);
    expect(recorded.params).toMatchObject({
      To: "+14155550123",
      From: "+14155550100",
      Url: engine.url("/answer"),
      Method: "POST",
      StatusCallback: engine.url("/status"),
      StatusCallbackEvent: ["initiated", "completed"],
      StatusCallbackMethod: "POST",
      Timeout: "30",
      MachineDetection: "Enable",
    });
    await recorded.played;
  });

  it("keeps a single StatusCallbackEvent as an array", async () => {
    const { engine, sim } = await setup();
    await sdk(sim).calls.create({
      to: "+14155550123",
      from: "+14155550100",
      url: engine.url("/a"),
      statusCallbackEvent: ["answered"],
    });
    expect(sim.calls[0]?.params.StatusCallbackEvent).toEqual(["answered"]);
  });

  it("rejects a wrong token, another account's token and a path for another account with 20003", async () => {
    const { engine, sim } = await setup();
    const params = { to: "+14155550123", from: "+14155550100", url: engine.url("/a") };
    for (const client of [
      sdk(sim, ACCOUNT, "wrong"),
      sdk(sim, ACCOUNT, OTHER_TOKEN),
      sdk(sim, `AC${"9".repeat(32)}`, TOKEN),
    ]) {
      const err = await client.calls.create(params).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(twilio.RestException);
      expect(err).toMatchObject({ code: 20003, status: 401, moreInfo: "https://www.twilio.com/docs/errors/20003" });
    }
    // The credentials are right, but for a different account than the one in the path.
    const crossed = await fetch(`${sim.url}/2010-04-01/Accounts/${OTHER_ACCOUNT}/Calls.json`, {
      method: "POST",
      headers: { Authorization: `Basic ${Buffer.from(`${ACCOUNT}:${TOKEN}`).toString("base64")}` },
      body: new URLSearchParams({ To: "+14155550123", From: "+14155550100", Url: engine.url("/a") }),
    });
    expect(crossed.status).toBe(401);
    const missing = await fetch(`${sim.url}/2010-04-01/Accounts/${ACCOUNT}/Calls.json`, {
      method: "POST",
      body: "To=%2B14155550123",
    });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      code: 20003,
      message: "Authenticate",
      more_info: "https://www.twilio.com/docs/errors/20003",
      status: 401,
    });
    expect(sim.calls).toHaveLength(0);
  });

  it("rejects a To that is not E.164 with 21211 and a call without Url/Twiml with 21205", async () => {
    const { engine, sim } = await setup();
    const bad = await sdk(sim)
      .calls.create({ to: "4155550123", from: "+14155550100", url: engine.url("/a") })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(bad).toBeInstanceOf(twilio.RestException);
    expect(bad).toMatchObject({
      code: 21211,
      status: 400,
      message: "The 'To' number 4155550123 is not a valid phone number.",
    });

    const raw = await fetch(`${sim.url}/2010-04-01/Accounts/${ACCOUNT}/Calls.json`, {
      method: "POST",
      headers: { Authorization: `Basic ${Buffer.from(`${ACCOUNT}:${TOKEN}`).toString("base64")}` },
      body: new URLSearchParams({ To: "+01415", From: "+14155550100", Url: engine.url("/a") }),
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toEqual({
      code: 21211,
      message: "The 'To' number +01415 is not a valid phone number.",
      more_info: "https://www.twilio.com/docs/errors/21211",
      status: 400,
    });

    const noUrl = await sdk(sim)
      .calls.create({ to: "+14155550123", from: "+14155550100" })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(noUrl).toMatchObject({ code: 21205, status: 400 });
    expect(sim.calls).toHaveLength(0);
  });

  it("answers other paths with a Twilio-style 404", async () => {
    const { sim } = await setup();
    const res = await fetch(`${sim.url}/2010-04-01/Accounts/${ACCOUNT}/Messages.json`, { method: "POST" });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      code: 20404,
      status: 404,
      more_info: "https://www.twilio.com/docs/errors/20404",
    });
  });

  it("with acceptAnyCredentials trusts any pair and signs callbacks with the token it was given", async () => {
    const { engine, sim } = await setup({ acceptAnyCredentials: true });
    const stranger = `AC${"3".repeat(32)}`;
    const call = await sdk(sim, stranger, "made-up-token").calls.create({
      to: "+14155550123",
      from: "+14155550100",
      url: engine.url("/a"),
      statusCallback: engine.url("/s"),
    });
    await sim.calls[0]!.played;
    expect(engine.hits.map((h) => h.path)).toEqual(["/a", "/s"]);
    for (const hit of engine.hits) {
      expectSigned(hit, "made-up-token");
      expect(hit.params).toMatchObject({ AccountSid: stranger, CallSid: call.sid });
    }
  });
});

describe("outbound call playback", () => {
  it("sends the requested status callbacks around the answer, signed, numbered and with AnsweredBy", async () => {
    const { engine, sim } = await setup();
    sim.planNextCall({ durationSeconds: 61, stepDelayMs: 1 });
    const call = await sdk(sim).calls.create({
      to: "+14155550123",
      from: "+14155550100",
      // Query strings are part of what is signed.
      url: engine.url("/answer?tenant=42&x=a%20b"),
      statusCallback: engine.url("/status?tenant=42"),
      statusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
      machineDetection: "Enable",
    });
    const played = await sim.calls[0]!.played;

    expect(engine.hits.map((h) => [h.path.split("?")[0], h.params.CallStatus])).toEqual([
      ["/status", "initiated"],
      ["/status", "ringing"],
      ["/answer", "in-progress"],
      ["/status", "in-progress"],
      ["/status", "completed"],
    ]);
    for (const hit of engine.hits) {
      expectSigned(hit);
      expect(hit.params).toMatchObject({
        CallSid: call.sid,
        AccountSid: ACCOUNT,
        From: "+14155550100",
        To: "+14155550123",
        Direction: "outbound-api",
        ApiVersion: "2010-04-01",
      });
    }
    const callbacks = engine.hits.filter((h) => h.path.startsWith("/status"));
    expect(callbacks.map((h) => h.params.SequenceNumber)).toEqual(["0", "1", "2", "3"]);
    for (const cb of callbacks) {
      expect(cb.params.CallbackSource).toBe("call-progress-events");
      expect(cb.params.Timestamp).toMatch(RFC2822);
    }
    expect(callbacks[3]?.params.CallDuration).toBe("61");
    expect(callbacks[0]?.params.CallDuration).toBeUndefined();

    const answer = engine.hits[2]!;
    expect(answer.params.AnsweredBy).toBe("human");
    expect(answer.params.CallbackSource).toBeUndefined();
    expect(answer.params.SequenceNumber).toBeUndefined();

    expect(played.callSid).toBe(call.sid);
    expect(played.answer).toMatchObject({ status: 200, body: TWIML, contentType: "text/xml" });
    expect(played.answer?.ms).toBeGreaterThanOrEqual(0);
    expect(played.statusCallbacks).toEqual([
      { status: "initiated", httpStatus: 200 },
      { status: "ringing", httpStatus: 200 },
      { status: "in-progress", httpStatus: 200 },
      { status: "completed", httpStatus: 200 },
    ]);
  });

  it("sends only `completed` when no StatusCallbackEvent is given, and no AnsweredBy without machine detection", async () => {
    const { engine, sim } = await setup();
    await sdk(sim).calls.create({
      to: "+14155550123",
      from: "+14155550100",
      url: engine.url("/answer"),
      statusCallback: engine.url("/status"),
    });
    const played = await sim.calls[0]!.played;
    expect(engine.hits.map((h) => [h.path, h.params.CallStatus, h.params.SequenceNumber])).toEqual([
      ["/answer", "in-progress", undefined],
      ["/status", "completed", "0"],
    ]);
    expect(engine.hits[0]?.params.AnsweredBy).toBeUndefined();
    expect(engine.hits[1]?.params.CallDuration).toBe("5");
    expect(played.statusCallbacks).toEqual([{ status: "completed", httpStatus: 200 }]);
    engine.hits.forEach((h) => expectSigned(h));
  });

  it("filters to the listed events and uses the plan's AnsweredBy", async () => {
    const { engine, sim } = await setup();
    sim.planNextCall({ answeredBy: "machine_end_beep" });
    await sdk(sim).calls.create({
      to: "+14155550123",
      from: "+14155550100",
      url: engine.url("/answer"),
      statusCallback: engine.url("/status"),
      statusCallbackEvent: ["ringing", "completed"],
    });
    await sim.calls[0]!.played;
    expect(engine.hits.map((h) => [h.path, h.params.CallStatus, h.params.SequenceNumber])).toEqual([
      ["/status", "ringing", "0"],
      ["/answer", "in-progress", undefined],
      ["/status", "completed", "1"],
    ]);
    expect(engine.hits[1]?.params.AnsweredBy).toBe("machine_end_beep");
  });

  it("plays busy, no-answer, canceled and failed without an answer request, with CallDuration=0", async () => {
    const { engine, sim } = await setup();
    const outcomes = ["busy", "no-answer", "canceled", "failed"] as const;
    for (const outcome of outcomes) sim.planNextCall({ outcome, durationSeconds: 99 });
    for (const _ of outcomes) {
      await sdk(sim).calls.create({
        to: "+14155550123",
        from: "+14155550100",
        url: engine.url("/answer"),
        statusCallback: engine.url("/status"),
        statusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
      });
    }
    const played = await Promise.all(sim.calls.map((c) => c.played));
    expect(engine.hits.some((h) => h.path === "/answer")).toBe(false);
    expect(played.map((p) => p.answer)).toEqual([null, null, null, null]);
    expect(played.map((p) => p.statusCallbacks.map((s) => s.status))).toEqual([
      ["initiated", "ringing", "busy"],
      ["initiated", "ringing", "no-answer"],
      ["initiated", "ringing", "canceled"],
      ["initiated", "failed"],
    ]);
    for (const [i, c] of sim.calls.entries()) {
      const mine = engine.hits.filter((h) => h.params.CallSid === c.callSid);
      expect(mine.map((h) => h.params.SequenceNumber)).toEqual(mine.map((_, n) => String(n)));
      expect(mine.at(-1)?.params).toMatchObject({ CallStatus: outcomes[i], CallDuration: "0" });
    }
  });

  it("records a dead service as HTTP status 0 and still finishes the call", async () => {
    const { sim } = await setup();
    const dead = await startEngine();
    const deadUrl = dead.url("/gone");
    await dead.close();
    await sdk(sim).calls.create({ to: "+14155550123", from: "+14155550100", url: deadUrl, statusCallback: deadUrl });
    const played = await sim.calls[0]!.played;
    expect(played.answer?.status).toBe(0);
    expect(played.statusCallbacks).toEqual([{ status: "completed", httpStatus: 0 }]);
  });

  it("close() stops calls that are still playing", async () => {
    const { engine, sim } = await setup();
    sim.planNextCall({ stepDelayMs: 60_000 });
    await sdk(sim).calls.create({
      to: "+14155550123",
      from: "+14155550100",
      url: engine.url("/answer"),
      statusCallback: engine.url("/status"),
    });
    const started = Date.now();
    await sim.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(engine.hits).toHaveLength(0);
  });
});

describe("inbound call playback", () => {
  it("posts the voice request, then the completed status callback, to the engine URL", async () => {
    engine = await startEngine();
    const url = engine.url("/api/engine/voice/tok_123");
    const played = await simulateInboundCall({
      engineUrl: url,
      from: "+14155550100",
      to: "+14155550123",
      authToken: TOKEN,
      durationSeconds: 61,
      stepDelayMs: 1,
    });

    expect(played.callSid).toMatch(/^CA[0-9a-f]{32}$/);
    expect(engine.hits).toHaveLength(2);
    const [voice, completed] = engine.hits as [Hit, Hit];
    for (const hit of engine.hits) {
      expect(hit.path).toBe("/api/engine/voice/tok_123");
      expectSigned(hit);
      expect(hit.params).toMatchObject({
        CallSid: played.callSid,
        AccountSid: SIMULATOR_ACCOUNT_SID,
        From: "+14155550100",
        To: "+14155550123",
        Direction: "inbound",
        ApiVersion: "2010-04-01",
      });
    }
    expect(voice.params.CallStatus).toBe("ringing");
    expect(voice.params.CallbackSource).toBeUndefined();
    expect(completed.params).toMatchObject({
      CallStatus: "completed",
      CallDuration: "61",
      CallbackSource: "call-progress-events",
      SequenceNumber: "0",
    });
    expect(completed.params.Timestamp).toMatch(RFC2822);
    expect(played.answer).toMatchObject({ status: 200, body: TWIML, contentType: "text/xml" });
    expect(played.statusCallbacks).toEqual([{ status: "completed", httpStatus: 200 }]);
  });

  it("uses the given AccountSid and CallSid", async () => {
    engine = await startEngine();
    const callSid = newCallSid();
    const played = await simulateInboundCall({
      engineUrl: engine.url("/v"),
      from: "+14155550100",
      to: "+14155550123",
      accountSid: ACCOUNT,
      authToken: TOKEN,
      callSid,
    });
    expect(played.callSid).toBe(callSid);
    expect(engine.hits.every((h) => h.params.CallSid === callSid && h.params.AccountSid === ACCOUNT)).toBe(true);
  });

  it("ends a call the engine rejects with <Reject> or an error status as busy, with CallDuration=0", async () => {
    engine = await startEngine(() => ({
      body: '<?xml version="1.0" encoding="UTF-8"?><Response><Reject reason="busy"/></Response>',
    }));
    const rejected = await simulateInboundCall({
      engineUrl: engine.url("/v"),
      from: "+14155550100",
      to: "+14155550123",
      authToken: TOKEN,
      durationSeconds: 61,
    });
    expect(rejected.answer?.body).toContain("<Reject");
    expect(rejected.statusCallbacks).toEqual([{ status: "busy", httpStatus: 200 }]);
    expect(engine.hits[1]?.params).toMatchObject({
      CallStatus: "busy",
      CallDuration: "0",
      CallbackSource: "call-progress-events",
    });

    engine.answer((hit) =>
      hit.params.CallStatus === "ringing"
        ? { status: 403, body: "forbidden", contentType: "text/plain" }
        : { status: 204 },
    );
    const failed = await simulateInboundCall({
      engineUrl: engine.url("/v"),
      from: "+14155550100",
      to: "+14155550123",
      authToken: TOKEN,
    });
    expect(failed.answer).toMatchObject({ status: 403, body: "forbidden" });
    expect(failed.statusCallbacks).toEqual([{ status: "busy", httpStatus: 204 }]);
  });

  it("signs with a random token by default, which the engine cannot verify with another token", async () => {
    engine = await startEngine();
    await simulateInboundCall({ engineUrl: engine.url("/v"), from: "+14155550100", to: "+14155550123" });
    const hit = engine.hits[0]!;
    expect(hit.signature).not.toBe("");
    expect(twilio.validateRequest(TOKEN, hit.signature, hit.url, hit.params)).toBe(false);
  });
});

describe("helpers", () => {
  it("postSigned sends a form POST the twilio SDK validates", async () => {
    engine = await startEngine(() => ({ status: 202, body: "ok", contentType: "text/plain" }));
    const url = engine.url("/cb?a=1");
    const res = await postSigned(url, { CallSid: "CA1", CallStatus: "completed" }, TOKEN);
    expect({ ...res, headers: undefined }).toEqual({ status: 202, body: "ok", contentType: "text/plain" });
    expect(res.headers.get("content-type")).toBe("text/plain");
    expectSigned(engine.hits[0]!);
    expect(engine.hits[0]?.params).toEqual({ CallSid: "CA1", CallStatus: "completed" });
  });

  it("makes Twilio-shaped SIDs and dates", () => {
    expect(newCallSid()).toMatch(/^CA[0-9a-f]{32}$/);
    expect(newCallSid()).not.toBe(newCallSid());
    expect(SIMULATOR_ACCOUNT_SID).toMatch(/^AC[0-9a-f]{32}$/);
    expect(rfc2822(new Date(Date.UTC(2010, 7, 16, 3, 45, 1)))).toBe("Mon, 16 Aug 2010 03:45:01 +0000");
  });
});

describe("REST: accounts and incoming numbers through the official twilio SDK", () => {
  it("fetches the account with its friendly name and status; refuses a wrong token with 401 and code 20003", async () => {
    const { sim } = await setup();
    sim.addAccount({ sid: `AC${"3".repeat(32)}`, authToken: "t3", friendlyName: "Acme Voice" });
    const account = await sdk(sim, `AC${"3".repeat(32)}`, "t3")
      .api.v2010.accounts(`AC${"3".repeat(32)}`)
      .fetch();
    expect(account).toMatchObject({ sid: `AC${"3".repeat(32)}`, friendlyName: "Acme Voice", status: "active" });

    const refused = await sdk(sim, ACCOUNT, "wrong")
      .api.v2010.accounts(ACCOUNT)
      .fetch()
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 401, code: 20003 });
    // Another account's credentials do not open this one.
    const crossed = await sdk(sim, OTHER_ACCOUNT, OTHER_TOKEN)
      .api.v2010.accounts(ACCOUNT)
      .fetch()
      .catch((e: unknown) => e);
    expect(crossed).toMatchObject({ status: 401, code: 20003 });
    const suspended = sim.addAccount({ status: "suspended" });
    expect(
      await sdk(sim, suspended.sid, suspended.authToken)
        .api.v2010.accounts(suspended.sid)
        .fetch()
        .catch((e: unknown) => e),
    ).toMatchObject({ status: 401, code: 20003 });
  });

  it("lists the credentials' own account and its subaccounts, no one else's", async () => {
    const { sim } = await setup();
    const sub = sim.addAccount({ parentSid: ACCOUNT, friendlyName: "EU numbers" });
    sim.addAccount({ parentSid: OTHER_ACCOUNT });
    const listed = await sdk(sim).api.v2010.accounts.list();
    expect(listed.map((a) => a.sid).sort()).toEqual([ACCOUNT, sub.sid].sort());
    expect(listed.find((a) => a.sid === sub.sid)).toMatchObject({
      friendlyName: "EU numbers",
      ownerAccountSid: ACCOUNT,
    });
    expect(
      await sdk(sim, ACCOUNT, "wrong")
        .api.v2010.accounts.list()
        .catch((e: unknown) => e),
    ).toMatchObject({ status: 401, code: 20003 });
  });

  it("lists an account's numbers across pages (next_page_uri), filters by PhoneNumber, never shows another account's", async () => {
    const { sim } = await setup();
    const mine = Array.from({ length: 120 }, (_, i) => `+1415555${String(1000 + i)}`);
    for (const n of mine) sim.addIncomingNumber(ACCOUNT, n);
    sim.addIncomingNumber(OTHER_ACCOUNT, "+14155559999");

    const pages: number[] = [];
    type NumbersPage = { instances: { phoneNumber: string }[]; nextPage(): Promise<NumbersPage> | undefined };
    let page: NumbersPage = await sdk(sim).incomingPhoneNumbers.page({ pageSize: 50 });
    const seen: string[] = [];
    for (;;) {
      pages.push(page.instances.length);
      seen.push(...page.instances.map((n) => n.phoneNumber));
      const next = await page.nextPage();
      if (!next) break;
      page = next;
    }
    expect(pages).toEqual([50, 50, 20]);
    expect(seen).toEqual(mine);

    const listed = await sdk(sim).incomingPhoneNumbers.list({ pageSize: 50 });
    expect(listed).toHaveLength(120);
    expect(listed[0]).toMatchObject({
      accountSid: ACCOUNT,
      phoneNumber: mine[0],
      voiceUrl: null,
      statusCallback: null,
    });
    expect(listed[0]!.sid).toMatch(/^PN[0-9a-f]{32}$/);

    const filtered = await sdk(sim).incomingPhoneNumbers.list({ phoneNumber: mine[7]! });
    expect(filtered.map((n) => n.phoneNumber)).toEqual([mine[7]]);
    expect(await sdk(sim).incomingPhoneNumbers.list({ phoneNumber: "+14155559999" })).toEqual([]);
  });

  it("updates a number's VoiceUrl and StatusCallback, an empty value clears; another account's number is 404", async () => {
    const { sim } = await setup();
    const n = sim.addIncomingNumber(ACCOUNT, "+14155550123");
    const updated = await sdk(sim).incomingPhoneNumbers(n.sid).update({
      voiceUrl: "https://routekit.example/api/engine/voice/rt_x",
      voiceMethod: "POST",
      statusCallback: "https://routekit.example/api/engine/voice/rt_x",
      statusCallbackMethod: "POST",
    });
    expect(updated).toMatchObject({
      voiceUrl: "https://routekit.example/api/engine/voice/rt_x",
      statusCallback: "https://routekit.example/api/engine/voice/rt_x",
      voiceMethod: "POST",
    });
    expect(sim.twilioAccounts.byPhoneNumber("+14155550123")).toMatchObject({
      voiceUrl: "https://routekit.example/api/engine/voice/rt_x",
    });

    await sdk(sim).incomingPhoneNumbers(n.sid).update({ voiceUrl: "", statusCallback: "" });
    expect(sim.twilioAccounts.byPhoneNumber("+14155550123")).toMatchObject({ voiceUrl: null, statusCallback: null });

    const bad = await sdk(sim)
      .incomingPhoneNumbers(n.sid)
      .update({ voiceUrl: "not a url" })
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400 });
    // twilio-oai's enum is `GET` | `POST`: Routekit sends "POST", and nothing else is taken for it.
    const lower = await sdk(sim)
      .incomingPhoneNumbers(n.sid)
      .update({ voiceUrl: "https://routekit.example/v", voiceMethod: "post" as "POST" })
      .catch((e: unknown) => e);
    expect(lower).toMatchObject({ status: 400 });
    expect(sim.twilioAccounts.byPhoneNumber("+14155550123")?.voiceUrl).toBeNull();
    const foreign = await sdk(sim, OTHER_ACCOUNT, OTHER_TOKEN)
      .incomingPhoneNumbers(n.sid)
      .update({ voiceUrl: "" })
      .catch((e: unknown) => e);
    expect(foreign).toMatchObject({ status: 404, code: 20404 });
    expect(() => sim.addIncomingNumber(OTHER_ACCOUNT, "+14155550123")).toThrow(/belongs/);
  });

  it("plays an inbound call to the number's voice URL and status callback, signed with the owner's token and AccountSid", async () => {
    const { engine, sim } = await setup();
    sim.addIncomingNumber(ACCOUNT, "+14155550123", {
      voiceUrl: engine.url("/voice"),
      statusCallback: engine.url("/status"),
    });
    const played = await sim.inboundCall({
      to: "+14155550123",
      from: "+14155550100",
      durationSeconds: 61,
      stepDelayMs: 1,
    });
    expect(played.answer).toMatchObject({ status: 200, body: TWIML });
    expect(engine.hits.map((h) => h.path)).toEqual(["/voice", "/status"]);
    for (const hit of engine.hits) {
      expectSigned(hit, TOKEN);
      expect(hit.params).toMatchObject({ AccountSid: ACCOUNT, To: "+14155550123", Direction: "inbound" });
    }
    expect(engine.hits[1]!.params).toMatchObject({ CallStatus: "completed", CallDuration: "61" });

    sim.addIncomingNumber(OTHER_ACCOUNT, "+14155550124", { voiceUrl: engine.url("/voice2") });
    await sim.inboundCall({ to: "+14155550124", from: "+14155550100", stepDelayMs: 1 });
    // No status callback set: only the voice request is made.
    expect(engine.hits.slice(2).map((h) => h.path)).toEqual(["/voice2"]);
    expectSigned(engine.hits[2]!, OTHER_TOKEN);

    sim.addIncomingNumber(ACCOUNT, "+14155550125");
    await expect(sim.inboundCall({ to: "+14155550125", from: "+14155550100" })).rejects.toThrow(/no voice URL/);
    await expect(sim.inboundCall({ to: "+14155550199", from: "+14155550100" })).rejects.toThrow(/not a number/);
  });
});
