import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import twilio from "twilio";
import type RequestClient from "twilio/lib/base/RequestClient";
import { afterEach, describe, expect, it } from "vitest";
import {
  newCallSid,
  type SimulatedCallPlan,
  simulateInboundCall,
  startTwilioSimulator,
  type TwilioSimulator,
} from "../../src/twilio-simulator/twilio-simulator";
import { until } from "../support/until";

// The simulator's call-update rules (#40), each as strict as Twilio: its Call resource's update ("Specifying
// `canceled` will attempt to hang up calls that are queued or ringing; however, it will not affect calls
// already in progress. Specifying `completed` will attempt to hang up a call even if it's already in
// progress."), its call status values and error 21220, driven through the official SDK as Routekit does.
const ACCOUNT = `AC${"4".repeat(32)}`;
const TOKEN = "c".repeat(32);
const LONG = 60_000;

type Hit = { path: string; params: Record<string, string> };

/** A stand-in for Routekit's engine: records every request; `voiceDelayMs` holds the inbound voice answer back. */
async function startEngine(opts: { voiceDelayMs?: number } = {}) {
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const params = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
      hits.push({ path: req.url ?? "/", params });
      const answer = () => res.writeHead(200, { "content-type": "text/xml" }).end("<Response><Pause/></Response>");
      if (req.url === "/voice" && opts.voiceDelayMs) setTimeout(answer, opts.voiceDelayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path: string) => `${base}${path}`,
    hits,
    /** The status callbacks about one call, in the order they came. */
    statusOf: (callSid: string) => hits.filter((h) => h.path === "/status" && h.params.CallSid === callSid),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

class SimulatorRequestClient extends twilio.RequestClient {
  constructor(private readonly baseUrl: string) {
    super();
  }
  override request<TData>(opts: RequestClient.RequestOptions<TData>) {
    return super.request({ ...opts, uri: opts.uri.replace(/^https:\/\/api\.twilio\.com/, this.baseUrl) });
  }
}

let sim: TwilioSimulator | undefined;
let engine: Awaited<ReturnType<typeof startEngine>> | undefined;
afterEach(async () => {
  await sim?.close();
  await engine?.close();
  sim = undefined;
  engine = undefined;
});

async function setup(engineOpts: { voiceDelayMs?: number } = {}) {
  engine = await startEngine(engineOpts);
  sim = await startTwilioSimulator({ accounts: { [ACCOUNT]: TOKEN } });
  sim.control.stepDelayMs = 1;
  const client = twilio(ACCOUNT, TOKEN, { httpClient: new SimulatorRequestClient(sim.url) });
  return { engine, sim, client };
}
type Setup = Awaited<ReturnType<typeof setup>>;

/** An outbound call as Routekit places it, played with `plan`; resolves with its SID once it reached `state`. */
async function outbound(s: Setup, plan: SimulatedCallPlan, state: "queued" | "ringing" | "in-progress" | "completed") {
  s.sim.planNextCall({ stepDelayMs: 1, ...plan });
  const created = await s.client.calls.create({
    to: "+14155550123",
    from: "+14155550100",
    url: s.engine.url("/answer"),
    method: "POST",
    statusCallback: s.engine.url("/status"),
    statusCallbackMethod: "POST",
    statusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
    timeout: 30,
  });
  await until(() => s.sim.control.get(created.sid)?.status === state, `call ${created.sid} ${state}`);
  const played = s.sim.calls.find((c) => c.callSid === created.sid)!.played;
  return { callSid: created.sid, played };
}

/** An inbound call to a number of the account whose voice URL and status callback are the engine's. */
async function inbound(s: Setup, plan: SimulatedCallPlan) {
  const number = "+14155550199";
  if (!s.sim.twilioAccounts.byPhoneNumber(number))
    s.sim.addIncomingNumber(ACCOUNT, number, {
      voiceUrl: s.engine.url("/voice"),
      statusCallback: s.engine.url("/status"),
    });
  const callSid = newCallSid();
  const played = s.sim.inboundCall({
    to: number,
    from: "+14155550100",
    callSid,
    holdMs: LONG,
    durationSeconds: 7,
    stepDelayMs: 1,
    ...plan,
  });
  return { callSid, played };
}

/** Twilio's error for a refused request (null when it was not refused). */
async function refusal(p: Promise<unknown>): Promise<{ status: number; code: number } | null> {
  return p.then(
    () => null,
    (e: unknown) => {
      expect(e).toBeInstanceOf(twilio.RestException);
      const { status, code } = e as { status: number; code: number };
      return { status, code };
    },
  );
}

const NOT_IN_PROGRESS = { status: 400, code: 21220 };

describe("Status=canceled", () => {
  it("leaves a call in progress up: 200 with status in-progress, no final status, and a later completed still ends it", async () => {
    const s = await setup();
    const { callSid, played } = await outbound(s, { holdMs: LONG, durationSeconds: 42 }, "in-progress");
    const updated = await s.client.calls(callSid).update({ status: "canceled" });
    expect(updated.status).toBe("in-progress");
    // Give a wrongly ended call every chance to report itself.
    await new Promise((r) => setTimeout(r, 150));
    expect(s.sim.control.get(callSid)).toMatchObject({ status: "in-progress", endedBy: null });
    expect((await s.client.calls(callSid).fetch()).status).toBe("in-progress");
    expect(s.engine.statusOf(callSid).map((h) => h.params.CallStatus)).toEqual(["initiated", "ringing", "in-progress"]);

    expect((await s.client.calls(callSid).update({ status: "completed" })).status).toBe("completed");
    await played;
    expect(s.engine.statusOf(callSid).at(-1)?.params).toMatchObject({ CallStatus: "completed", CallDuration: "42" });
  });

  it("ends a ringing call canceled with CallDuration 0; it never reaches its answer step", async () => {
    const s = await setup();
    const { callSid, played } = await outbound(s, { ringMs: LONG }, "ringing");
    const updated = await s.client.calls(callSid).update({ status: "canceled" });
    expect(updated.status).toBe("canceled");
    expect(updated.duration).toBe("0");
    const result = await played;
    expect(result.answer).toBeNull();
    expect(s.engine.hits.some((h) => h.path === "/answer")).toBe(false);
    expect(result.statusCallbacks.map((c) => c.status)).toEqual(["initiated", "ringing", "canceled"]);
    expect(s.engine.statusOf(callSid).at(-1)?.params).toMatchObject({ CallStatus: "canceled", CallDuration: "0" });
    expect(await s.client.calls(callSid).fetch()).toMatchObject({ status: "canceled", duration: "0" });
    expect(s.sim.control.get(callSid)?.endedBy).toBe("api");
  });

  it("ends a queued call canceled before it rings", async () => {
    const s = await setup();
    const { callSid, played } = await outbound(s, { stepDelayMs: 300 }, "queued");
    expect((await s.client.calls(callSid).update({ status: "canceled" })).status).toBe("canceled");
    const result = await played;
    // The initiated callback's step found the call over: only the final status goes out.
    expect(result.statusCallbacks.map((c) => c.status)).toEqual(["canceled"]);
    expect(s.engine.statusOf(callSid).at(-1)?.params).toMatchObject({ CallStatus: "canceled", CallDuration: "0" });
  });
});

describe("Status=completed", () => {
  it("ends a ringing call as Twilio records one hung up before it connected: canceled, CallDuration 0", async () => {
    const s = await setup();
    const { callSid, played } = await outbound(s, { ringMs: LONG }, "ringing");
    const updated = await s.client.calls(callSid).update({ status: "completed" });
    expect(updated.status).toBe("canceled");
    const result = await played;
    expect(result.answer).toBeNull();
    expect(s.engine.statusOf(callSid).at(-1)?.params).toMatchObject({ CallStatus: "canceled", CallDuration: "0" });
    expect((await s.client.calls(callSid).fetch()).status).toBe("canceled");
  });

  it("ends a call in progress completed with its duration; the final status goes out once and the records agree", async () => {
    const s = await setup();
    const { callSid, played } = await outbound(s, { holdMs: LONG, durationSeconds: 42 }, "in-progress");
    const updated = await s.client.calls(callSid).update({ status: "completed" });
    expect(updated).toMatchObject({ status: "completed", duration: "42" });
    expect(updated.endTime).toBeInstanceOf(Date);
    // A second hang-up is refused: there is nothing left to end, and nothing more is reported.
    expect(await refusal(s.client.calls(callSid).update({ status: "completed" }))).toEqual(NOT_IN_PROGRESS);
    await played;
    await new Promise((r) => setTimeout(r, 100));
    const finals = s.engine.statusOf(callSid).filter((h) => h.params.CallStatus === "completed");
    expect(finals).toHaveLength(1);
    expect(finals[0]!.params).toMatchObject({ CallDuration: "42", CallbackSource: "call-progress-events" });
    const fetched = await s.client.calls(callSid).fetch();
    expect(fetched).toMatchObject({ status: "completed", duration: "42" });
    const [listed] = (await s.client.calls.list({ to: "+14155550123" })).filter((c) => c.sid === callSid);
    expect(listed).toMatchObject({ status: "completed", duration: "42" });
    expect(s.sim.control.get(callSid)?.endedBy).toBe("api");
  });

  it("ends an inbound call in progress; canceled before that left it up", async () => {
    const s = await setup();
    const { callSid, played } = await inbound(s, {});
    await until(() => s.sim.control.get(callSid)?.status === "in-progress", "inbound call in progress");
    expect((await s.client.calls(callSid).update({ status: "canceled" })).status).toBe("in-progress");
    await new Promise((r) => setTimeout(r, 100));
    expect(s.engine.statusOf(callSid)).toEqual([]);
    expect((await s.client.calls(callSid).update({ status: "completed" })).status).toBe("completed");
    const result = await played;
    expect(result.statusCallbacks).toEqual([{ status: "completed", httpStatus: 200 }]);
    expect(s.engine.statusOf(callSid)[0]!.params).toMatchObject({ CallStatus: "completed", CallDuration: "7" });
    expect(await s.client.calls(callSid).fetch()).toMatchObject({ status: "completed", duration: "7" });
  });

  it("ends an inbound call hung up while its voice request is out canceled, whatever the engine then answers", async () => {
    const s = await setup({ voiceDelayMs: 300 });
    const { callSid, played } = await inbound(s, {});
    await until(() => s.engine.hits.some((h) => h.path === "/voice" && h.params.CallSid === callSid), "voice request");
    expect((await s.client.calls(callSid).update({ status: "completed" })).status).toBe("canceled");
    const result = await played;
    expect(result.answer?.status).toBe(200);
    expect(s.sim.control.get(callSid)?.status).toBe("canceled");
    expect(s.engine.statusOf(callSid).map((h) => [h.params.CallStatus, h.params.CallDuration])).toEqual([
      ["canceled", "0"],
    ]);
  });
});

describe("what an update cannot change (21220)", () => {
  it("an ended call takes no status update and no redirect", async () => {
    const s = await setup();
    const { callSid, played } = await outbound(s, {}, "completed");
    await played;
    for (const update of [
      { status: "completed" as const },
      { status: "canceled" as const },
      { twiml: "<Response><Say>Hello?</Say></Response>" },
      { url: s.engine.url("/next") },
    ]) {
      expect(await refusal(s.client.calls(callSid).update(update)), JSON.stringify(update)).toEqual(NOT_IN_PROGRESS);
    }
    expect((await s.client.calls(callSid).fetch()).status).toBe("completed");
    expect(s.engine.statusOf(callSid).filter((h) => h.params.CallStatus === "completed")).toHaveLength(1);
  });

  it("a ringing call takes no redirect, and rings on", async () => {
    const s = await setup();
    const { callSid, played } = await outbound(s, { ringMs: LONG }, "ringing");
    expect(await refusal(s.client.calls(callSid).update({ twiml: "<Response><Hangup/></Response>" }))).toEqual(
      NOT_IN_PROGRESS,
    );
    expect(await refusal(s.client.calls(callSid).update({ url: s.engine.url("/next") }))).toEqual(NOT_IN_PROGRESS);
    await new Promise((r) => setTimeout(r, 100));
    expect(s.sim.control.get(callSid)).toMatchObject({ status: "ringing", documents: [] });
    expect(s.engine.hits.some((h) => h.path === "/next")).toBe(false);
    await s.client.calls(callSid).update({ status: "canceled" });
    await played;
  });

  it("a call record nobody plays follows the same rules: completed ends it, canceled does not, an ended one refuses", async () => {
    const s = await setup();
    const up = s.sim.callRecords.add({
      accountSid: ACCOUNT,
      from: "+14155550100",
      to: "+14155550123",
      status: "in-progress",
      startTime: new Date(Date.now() - 3_000),
    });
    expect((await s.client.calls(up.sid).update({ status: "canceled" })).status).toBe("in-progress");
    const ended = await s.client.calls(up.sid).update({ status: "completed" });
    // Nobody planned its length: it lasted as long as it was up.
    expect(ended).toMatchObject({ status: "completed", duration: "3" });
    expect(await refusal(s.client.calls(up.sid).update({ status: "completed" }))).toEqual(NOT_IN_PROGRESS);
    const over = s.sim.callRecords.add({ accountSid: ACCOUNT, from: "+14155550100", to: "+14155550123" });
    expect(await refusal(s.client.calls(over.sid).update({ twiml: "<Response/>" }))).toEqual(NOT_IN_PROGRESS);
  });

  it("a call played with simulateInboundCall into the simulator's records is the same call its REST API ends", async () => {
    const s = await setup();
    const callSid = newCallSid();
    const played = simulateInboundCall({
      engineUrl: s.engine.url("/voice"),
      statusCallbackUrl: s.engine.url("/status"),
      from: "+14155550100",
      to: "+14155550123",
      accountSid: ACCOUNT,
      authToken: TOKEN,
      callSid,
      callRecords: s.sim.callRecords,
      holdMs: LONG,
      durationSeconds: 9,
      stepDelayMs: 1,
    });
    await until(() => s.sim.callRecords.get(ACCOUNT, callSid)?.status === "in-progress", "in progress");
    expect((await s.client.calls(callSid).update({ status: "completed" })).status).toBe("completed");
    // The playback holding the call up wakes at once, not when its hold runs out.
    const result = await Promise.race([played, new Promise((r) => setTimeout(() => r("still held"), 2_000))]);
    expect(result).toMatchObject({ statusCallbacks: [{ status: "completed", httpStatus: 200 }] });
    expect(s.engine.statusOf(callSid)[0]!.params).toMatchObject({ CallStatus: "completed", CallDuration: "9" });
  });

  it("a recording needs a call in progress", async () => {
    const s = await setup();
    const { callSid, played } = await outbound(s, { ringMs: LONG }, "ringing");
    expect(await refusal(s.client.calls(callSid).recordings.create({}))).toEqual(NOT_IN_PROGRESS);
    await s.client.calls(callSid).update({ status: "canceled" });
    await played;
    expect(await refusal(s.client.calls(callSid).recordings.create({}))).toEqual(NOT_IN_PROGRESS);
  });
});

describe("what Twilio refuses outright", () => {
  it("a Status other than canceled or completed, Twiml with Url, a Method other than GET or POST", async () => {
    const s = await setup();
    const { callSid, played } = await outbound(s, { holdMs: LONG }, "in-progress");
    const raw = (body: Record<string, string>) =>
      fetch(`${s.sim.url}/2010-04-01/Accounts/${ACCOUNT}/Calls/${callSid}.json`, {
        method: "POST",
        headers: { authorization: `Basic ${Buffer.from(`${ACCOUNT}:${TOKEN}`).toString("base64")}` },
        body: new URLSearchParams(body),
      });
    const bodies: Record<string, string>[] = [
      { Status: "busy" },
      { Status: "in-progress" },
      { Twiml: "<Response/>", Url: s.engine.url("/next") },
      { Url: s.engine.url("/next"), Method: "PUT" },
      {},
    ];
    for (const body of bodies) {
      const res = await raw(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(s.sim.control.get(callSid)).toMatchObject({ status: "in-progress", documents: [] });
    await s.client.calls(callSid).update({ status: "completed" });
    await played;
  });

  it("Calls.create: a MachineDetection, Method or Timeout Twilio does not take", async () => {
    const s = await setup();
    const base = { to: "+14155550123", from: "+14155550100", url: s.engine.url("/answer") };
    for (const bad of [
      { machineDetection: "enable" },
      { method: "PUT" },
      { statusCallbackMethod: "post" },
      { timeout: 2.5 },
    ]) {
      expect(await refusal(s.client.calls.create({ ...base, ...bad })), JSON.stringify(bad)).toMatchObject({
        status: 400,
      });
    }
    expect(s.sim.calls).toHaveLength(0);
  });

  it("a phone that rings past the call's Timeout ends no-answer", async () => {
    const s = await setup();
    s.sim.planNextCall({ ringMs: LONG, stepDelayMs: 1 });
    const created = await s.client.calls.create({
      to: "+14155550123",
      from: "+14155550100",
      url: s.engine.url("/answer"),
      statusCallback: s.engine.url("/status"),
      timeout: 1,
    });
    const result = await s.sim.calls[0]!.played;
    expect(result.answer).toBeNull();
    expect(s.engine.statusOf(created.sid).at(-1)?.params).toMatchObject({
      CallStatus: "no-answer",
      CallDuration: "0",
    });
  });
});

describe("recordings", () => {
  it("a pause counts in the recording's length unless PauseBehavior is skip (Twilio's default is silence)", async () => {
    const s = await setup();
    const lengths: Record<string, string> = {};
    for (const pauseBehavior of ["silence", "skip"] as const) {
      const { callSid, played } = await outbound(s, { holdMs: LONG }, "in-progress");
      const rec = await s.client.calls(callSid).recordings.create({
        recordingStatusCallback: s.engine.url("/recording"),
        recordingStatusCallbackEvent: ["completed"],
      });
      expect(rec.status).toBe("in-progress");
      expect(
        (await s.client.calls(callSid).recordings(rec.sid).update({ status: "paused", pauseBehavior })).status,
      ).toBe("paused");
      await new Promise((r) => setTimeout(r, 1_200));
      await s.client.calls(callSid).recordings(rec.sid).update({ status: "stopped" });
      const done = await until(
        () => s.engine.hits.find((h) => h.path === "/recording" && h.params.RecordingSid === rec.sid),
        "recording callback",
      );
      lengths[pauseBehavior] = done.params.RecordingDuration!;
      await s.client.calls(callSid).update({ status: "completed" });
      await played;
    }
    expect(lengths).toEqual({ silence: "1", skip: "0" });
  });

  it("takes only the values Twilio lists for channels, events, track and trim", async () => {
    const s = await setup();
    const { callSid, played } = await outbound(s, { holdMs: LONG }, "in-progress");
    for (const bad of [
      { recordingChannels: "stereo" },
      { recordingStatusCallbackEvent: ["done"] },
      { recordingTrack: "left" },
      { trim: "yes" },
      { recordingStatusCallbackMethod: "PUT" as "POST" },
    ]) {
      expect(await refusal(s.client.calls(callSid).recordings.create(bad)), JSON.stringify(bad)).toMatchObject({
        status: 400,
        code: 20001,
      });
    }
    expect(s.sim.control.get(callSid)?.recordings).toEqual([]);
    await s.client.calls(callSid).update({ status: "completed" });
    await played;
  });
});
