import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  newCallSid,
  postSigned,
  simulateInboundCall,
  type TwilioSimulator,
} from "../../src/twilio-simulator/twilio-simulator";
import { newActiveAccount, numberBody, randomUsNumber, sql, suspend, type TestAccount, seed } from "../support/api";
import { fromNow } from "../support/seed";
import { startSharedTwilioSimulator } from "../support/shared-twilio-simulator";
import { startReceiver, type Received } from "../support/receiver";
import { until } from "../support/until";

// The call log (docs/decisions.md §11): every call the engine sees, whatever its end, with its timeline.
const TWILIO_SID = `AC${"2".repeat(32)}`;
const TWILIO_TOKEN = "simulator-auth-token";
const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Hello from the backend</Say></Response>';

let twilio: TwilioSimulator;
let backend: Awaited<ReturnType<typeof startReceiver>>;
const answers = new Map<string, (res: ServerResponse) => unknown>();

beforeAll(async () => {
  twilio = await startSharedTwilioSimulator({ [TWILIO_SID]: TWILIO_TOKEN });
  backend = await startReceiver((r: Received, res) => {
    const answer = answers.get(r.path);
    if (answer) return answer(res);
    res.writeHead(200).end("ok");
  });
});
afterAll(async () => {
  await twilio.close();
  await backend.close();
});

type Setup = { account: TestAccount; number: string; numberId: string; start: string; end: string; error: string };

async function setup(
  answer: (res: ServerResponse) => unknown,
  opts: { account?: TestAccount; startUrl?: string } = {},
): Promise<Setup> {
  const account = opts.account ?? (await newActiveAccount({ server: "permissive" }));
  const tag = `${account.id}-${Math.random().toString(36).slice(2, 8)}`;
  const paths = { start: `/${tag}/start`, end: `/${tag}/end`, error: `/${tag}/error` };
  answers.set(paths.start, answer);
  const number = randomUsNumber();
  const res = await account.as("POST", "/api/phone-numbers", {
    body: numberBody({
      phoneNumber: number,
      onCallStartUrl: opts.startUrl ?? backend.url(paths.start),
      onCallEndUrl: backend.url(paths.end),
      onErrorUrl: backend.url(paths.error),
    }),
  });
  expect(res.status).toBe(201);
  return { account, number, numberId: res.body.phoneNumber.id, ...paths };
}

/** The call once the engine has logged it as far as `ready` says (the answer is written after Twilio has it). */
async function callOf(account: TestAccount, callSid: string, ready: (c: any) => boolean = (c) => c.answer !== null) {
  return until(async () => {
    const res = await account.as("GET", `/api/calls/${callSid}`);
    return res.status === 200 && ready(res.body.call) && res.body.call;
  }, `call ${callSid}`);
}

const requests = (call: any) =>
  call.timeline.filter((e: any) => e.type === "request").map((e: any) => `${e.kind}:${e.callStatus}`);
const types = (call: any) => call.timeline.map((e: any) => e.type);
const voiceBase = (s: Setup, CallSid: string) => ({
  CallSid,
  AccountSid: TWILIO_SID,
  From: "+14155550100",
  To: s.number,
  Direction: "inbound",
});

describe("GET /api/calls and /api/calls/:callSid", () => {
  it("a completed call: listed with its answer and cost; its timeline has Twilio's requests, call.started, the TwiML, call.ended and usage", async () => {
    const s = await setup((res) => res.writeHead(200, { "content-type": "application/xml" }).end(XML));
    const played = await simulateInboundCall({
      engineUrl: s.account.engineVoiceUrl,
      from: "+14155550100",
      to: s.number,
      durationSeconds: 61,
      authToken: TWILIO_TOKEN,
    });
    const call = await callOf(
      s.account,
      played.callSid,
      (c) => c.answer !== null && c.status === "completed" && c.timeline.some((e: any) => e.type === "event"),
    );

    expect(call).toMatchObject({
      callSid: played.callSid,
      direction: "inbound",
      from: "+14155550100",
      to: s.number,
      phoneNumberId: s.numberId,
      status: "completed",
      durationSeconds: 61,
      billedMinutes: 2,
      costBreakdown: { durationSeconds: 61, billedMinutes: 2, currency: "usd" },
      answer: "xml",
      error: null,
    });
    expect(call.endedAt).not.toBeNull();
    expect(requests(call)[0]).toBe("voice:ringing");
    expect(requests(call)).toContain("status:completed");
    const started = call.timeline.find((e: any) => e.type === "call.started");
    expect(started).toMatchObject({
      url: backend.url(s.start),
      statusCode: 200,
      responseExcerpt: XML,
      error: null,
      answerUse: "xml",
    });
    expect(started.latencyMs).toBeGreaterThanOrEqual(0);
    expect(call.timeline.find((e: any) => e.type === "twiml").twiml).toBe(XML);
    expect(call.timeline.find((e: any) => e.type === "event")).toMatchObject({
      eventType: "call.ended",
      url: backend.url(s.end),
    });
    expect(call.timeline.find((e: any) => e.type === "usage")).toMatchObject({ billedMinutes: 2 });
    // Oldest first: the voice request, then what it led to.
    expect(types(call).indexOf("request")).toBeLessThan(types(call).indexOf("call.started"));
    expect(types(call).indexOf("call.started")).toBeLessThan(types(call).indexOf("usage"));

    const list = await s.account.as("GET", "/api/calls");
    expect(list.status).toBe(200);
    expect(list.body.calls).toHaveLength(1);
    expect(list.body.calls[0]).toMatchObject({
      callSid: played.callSid,
      status: "completed",
      answer: "xml",
      error: null,
      billedMinutes: 2,
    });
    expect(list.body.calls[0].timeline).toBeUndefined();
    expect(list.body.nextCursor).toBeNull();
  });

  it("call.started is in the delivery log, synchronous, with how its answer was used; it cannot be redelivered", async () => {
    const s = await setup((res) =>
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ actions: [{ say: "Hi" }, { hangup: true }] })),
    );
    const played = await simulateInboundCall({
      engineUrl: s.account.engineVoiceUrl,
      from: "+14155550100",
      to: s.number,
      authToken: TWILIO_TOKEN,
    });
    await callOf(s.account, played.callSid);
    const log = await s.account.as("GET", `/api/webhook-deliveries?callSid=${played.callSid}`);
    expect(log.status).toBe(200);
    const sync = log.body.deliveries.find((d: any) => d.eventType === "call.started");
    expect(sync).toMatchObject({
      synchronous: true,
      answerUse: "json-actions",
      status: "DELIVERED",
      attemptCount: 1,
      url: backend.url(s.start),
    });
    expect(sync.lastAttempt).toMatchObject({ statusCode: 200 });
    expect(sync.lastAttempt.responseExcerpt).toContain('"actions"');
    const ended = await until(async () => {
      const l = await s.account.as("GET", `/api/webhook-deliveries?callSid=${played.callSid}`);
      return l.body.deliveries.find((d: any) => d.eventType === "call.ended");
    }, "call.ended delivery");
    expect(ended).toMatchObject({ synchronous: false, answerUse: null });

    const detail = await s.account.as("GET", `/api/webhook-deliveries/${sync.id}`);
    expect(detail.body.delivery.payload).toMatchObject({ type: "call.started", data: { callSid: played.callSid } });
    const retry = await s.account.as("POST", `/api/webhook-deliveries/${sync.id}/retry`);
    expect(retry.status).toBe(400);
    expect(retry.body.error.code).toBe("VALIDATION_FAILED");
    expect(retry.body.error.message).toMatch(/cannot be redelivered/);
  });

  it("json-twiml answers are recorded as such", async () => {
    const s = await setup((res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ twiml: XML })),
    );
    const played = await simulateInboundCall({
      engineUrl: s.account.engineVoiceUrl,
      from: "+14155550100",
      to: s.number,
      authToken: TWILIO_TOKEN,
    });
    const call = await callOf(s.account, played.callSid);
    expect(call).toMatchObject({ answer: "json-twiml", error: null });
  });

  it.each([
    [
      "START_CALLBACK_TIMEOUT",
      (res: ServerResponse) => setTimeout(() => res.writeHead(200, { "content-type": "text/xml" }).end(XML), 3000),
      null,
      null,
    ],
    ["START_CALLBACK_STATUS", (res: ServerResponse) => res.writeHead(500).end("backend exploded"), null, 500],
    [
      "START_CALLBACK_INVALID",
      (res: ServerResponse) => res.writeHead(200, { "content-type": "text/xml" }).end("<Say>no Response root</Say>"),
      null,
      200,
    ],
    ["START_CALLBACK_UNREACHABLE", (res: ServerResponse) => res.end(), "http://127.0.0.1:9/start", null],
  ])(
    "fallen back on %s: listed as completed with answer fallback and the error; the timeline shows why",
    async (code, answer, startUrl, statusCode) => {
      const s = await setup(answer, startUrl ? { startUrl } : {});
      const played = await simulateInboundCall({
        engineUrl: s.account.engineVoiceUrl,
        from: "+14155550100",
        to: s.number,
        durationSeconds: 3,
        authToken: TWILIO_TOKEN,
      });
      expect(played.answer!.body).toContain("<Hangup/>");
      const call = await callOf(s.account, played.callSid, (c) => c.answer !== null && c.status === "completed");
      expect(call).toMatchObject({ status: "completed", answer: "fallback", error: { code } });
      expect(call.error.message.length).toBeGreaterThan(0);
      const started = call.timeline.find((e: any) => e.type === "call.started");
      expect(started).toMatchObject({ answerUse: code, statusCode });
      if (statusCode === null) expect(started.error).toBeTruthy();
      if (statusCode === 500) expect(started.responseExcerpt).toBe("backend exploded");
      expect(call.timeline.find((e: any) => e.type === "twiml").twiml).toContain("<Hangup/>");
      const events = await until(async () => {
        const c = await s.account.as("GET", `/api/calls/${played.callSid}`);
        const sent = c.body.call.timeline.filter((e: any) => e.type === "event").map((e: any) => e.eventType);
        return sent.includes("call.error") && sent.includes("call.ended") && sent;
      }, "events sent");
      expect(events.sort()).toEqual(["call.ended", "call.error"]);

      const listed = await s.account.as("GET", "/api/calls?status=completed");
      expect(listed.body.calls[0]).toMatchObject({ callSid: played.callSid, answer: "fallback", error: { code } });
    },
  );

  it("busy, no-answer, failed and canceled calls are listed with their status; failed carries CALL_FAILED", async () => {
    const s = await setup((res) => res.writeHead(200, { "content-type": "text/xml" }).end(XML));
    const sids: Record<string, string> = {};
    for (const status of ["busy", "no-answer", "failed", "canceled"]) {
      const CallSid = newCallSid();
      sids[status] = CallSid;
      await postSigned(s.account.engineVoiceUrl, { ...voiceBase(s, CallSid), CallStatus: "ringing" }, TWILIO_TOKEN);
      await postSigned(
        s.account.engineVoiceUrl,
        {
          ...voiceBase(s, CallSid),
          CallStatus: status,
          CallDuration: "0",
          SequenceNumber: "1",
          CallbackSource: "call-progress-events",
        },
        TWILIO_TOKEN,
      );
    }
    for (const [status, sid] of Object.entries(sids)) {
      const call = await callOf(s.account, sid, (c) => c.answer !== null && c.endedAt !== null);
      expect(call).toMatchObject({ status, answer: "xml", durationSeconds: 0, billedMinutes: 0, costBreakdown: null });
      expect(call.error).toEqual(status === "failed" ? { code: "CALL_FAILED", message: expect.any(String) } : null);
      expect(requests(call)).toEqual(["voice:ringing", `status:${status}`]);
      expect(call.timeline.find((e: any) => e.type === "request" && e.kind === "status").sequenceNumber).toBe(1);
    }
    const busy = await s.account.as("GET", "/api/calls?status=busy");
    expect(busy.body.calls.map((c: any) => c.callSid)).toEqual([sids.busy]);
  });

  it("a voice request Twilio sends again after the first was answered is a second voice entry; the first is kept on the call's row", async () => {
    const s = await setup((res) => res.writeHead(200, { "content-type": "text/xml" }).end(XML));
    const CallSid = newCallSid();
    await postSigned(s.account.engineVoiceUrl, { ...voiceBase(s, CallSid), CallStatus: "ringing" }, TWILIO_TOKEN);
    await callOf(s.account, CallSid);
    await postSigned(s.account.engineVoiceUrl, { ...voiceBase(s, CallSid), CallStatus: "in-progress" }, TWILIO_TOKEN);
    const call = await callOf(s.account, CallSid, (c) => requests(c).length === 2);
    expect(requests(call)).toEqual(["voice:ringing", "voice:in-progress"]);
    const [row] = (
      await sql("permissive").query(
        `SELECT "voiceRequestStatus", (SELECT count(*)::int FROM "CallRequest" r WHERE r."callId" = c.id) AS "requestRows"
         FROM "Call" c WHERE "callSid" = $1`,
        [CallSid],
      )
    ).rows;
    expect(row).toEqual({ voiceRequestStatus: "ringing", requestRows: 1 });
  });

  it("duplicate and late status callbacks are on the timeline and change nothing", async () => {
    const s = await setup((res) => res.writeHead(200, { "content-type": "text/xml" }).end(XML));
    const CallSid = newCallSid();
    await postSigned(s.account.engineVoiceUrl, { ...voiceBase(s, CallSid), CallStatus: "ringing" }, TWILIO_TOKEN);
    const final = {
      ...voiceBase(s, CallSid),
      CallStatus: "completed",
      CallDuration: "30",
      CallbackSource: "call-progress-events",
    };
    await postSigned(s.account.engineVoiceUrl, final, TWILIO_TOKEN);
    await postSigned(s.account.engineVoiceUrl, final, TWILIO_TOKEN);
    await postSigned(
      s.account.engineVoiceUrl,
      { ...voiceBase(s, CallSid), CallStatus: "in-progress", CallbackSource: "call-progress-events" },
      TWILIO_TOKEN,
    );
    const call = await callOf(s.account, CallSid);
    expect(call.status).toBe("completed");
    expect(requests(call)).toEqual(["voice:ringing", "status:completed", "status:completed", "status:in-progress"]);
    expect(call.timeline.filter((e: any) => e.type === "usage")).toHaveLength(1);
  });

  it("an `answered` CallStatus is stored and shown as in-progress, and found by that filter; the timeline keeps what Twilio sent", async () => {
    const s = await setup((res) => res.writeHead(200, { "content-type": "text/xml" }).end(XML));
    const CallSid = newCallSid();
    await postSigned(s.account.engineVoiceUrl, { ...voiceBase(s, CallSid), CallStatus: "ringing" }, TWILIO_TOKEN);
    const answered = await postSigned(
      s.account.engineVoiceUrl,
      { ...voiceBase(s, CallSid), CallStatus: "answered", CallbackSource: "call-progress-events" },
      TWILIO_TOKEN,
    );
    expect(answered.status).toBe(200);
    const call = await callOf(s.account, CallSid, (c) => c.answer !== null && requests(c).length === 2);
    expect(call.status).toBe("in-progress");
    expect(requests(call)).toEqual(["voice:ringing", "status:answered"]);
    const listed = await s.account.as("GET", `/api/calls?status=in-progress&callSid=${CallSid}`);
    expect(listed.status).toBe(200);
    expect(listed.body.calls.map((c: any) => c.callSid)).toEqual([CallSid]);
    const [row] = (await sql("permissive").query(`SELECT status FROM "Call" WHERE "callSid" = $1`, [CallSid])).rows;
    expect(row.status).toBe("in-progress");
  });

  it("rejected calls of a suspended account and to an unregistered number are listed with answer reject and the reason", async () => {
    const s = await setup((res) => res.end(XML));
    const unregistered = randomUsNumber();
    const toNowhere = await simulateInboundCall({
      engineUrl: s.account.engineVoiceUrl,
      from: "+14155550100",
      to: unregistered,
      authToken: TWILIO_TOKEN,
    });
    expect(toNowhere.answer!.body).toContain("<Reject/>");
    const nowhere = await callOf(s.account, toNowhere.callSid);
    expect(nowhere).toMatchObject({
      status: "rejected",
      answer: "reject",
      phoneNumberId: null,
      to: unregistered,
      error: { code: "NUMBER_NOT_REGISTERED" },
    });

    await suspend(s.account);
    const played = await simulateInboundCall({
      engineUrl: s.account.engineVoiceUrl,
      from: "+14155550100",
      to: s.number,
      authToken: TWILIO_TOKEN,
    });
    expect(played.answer!.body).toContain("<Reject/>");
    const call = await callOf(s.account, played.callSid);
    expect(call).toMatchObject({
      status: "rejected",
      answer: "reject",
      phoneNumberId: s.numberId,
      error: { code: "ACCOUNT_SUSPENDED" },
      billedMinutes: 0,
    });
    expect(requests(call)[0]).toBe("voice:ringing");
    expect(call.timeline.find((e: any) => e.type === "twiml").twiml).toContain("<Reject/>");
    // The error event went out as before.
    await until(
      async () =>
        (await s.account.as("GET", `/api/calls/${played.callSid}`)).body.call.timeline.some(
          (e: any) => e.eventType === "call.error",
        ),
      "call.error in the timeline",
    );
    const rejected = await s.account.as("GET", "/api/calls?status=rejected");
    expect(rejected.body.calls.map((c: any) => c.callSid).sort()).toEqual([played.callSid, toNowhere.callSid].sort());
  });

  it("rejected calls are recorded within a daily bound per account", async () => {
    const s = await setup((res) => res.end(XML));
    await suspend(s.account);
    // Fill the day's bound directly, then one more reject: answered, not recorded.
    await seed("permissive").calls(
      Array.from({ length: 1000 }, () => ({
        accountId: s.account.id,
        toNumber: s.number,
        status: "rejected",
        statusRank: 10,
        onCallStartUrl: "",
        onCallEndUrl: "",
        answer: "reject",
      })),
    );
    const played = await simulateInboundCall({
      engineUrl: s.account.engineVoiceUrl,
      from: "+14155550100",
      to: s.number,
      authToken: TWILIO_TOKEN,
    });
    expect(played.answer!.body).toContain("<Reject/>");
    await new Promise((r) => setTimeout(r, 1500));
    expect((await s.account.as("GET", `/api/calls/${played.callSid}`)).status).toBe(404);
  });

  it("filters: status, direction, phoneNumberId, callSid, answer, since and until", async () => {
    const s = await setup((res) => res.writeHead(200, { "content-type": "text/xml" }).end(XML));
    const other = await setup((res) => res.writeHead(200, { "content-type": "text/xml" }).end(XML), {
      account: s.account,
    });
    const a = await simulateInboundCall({
      engineUrl: s.account.engineVoiceUrl,
      from: "+14155550100",
      to: s.number,
      authToken: TWILIO_TOKEN,
    });
    const b = await simulateInboundCall({
      engineUrl: s.account.engineVoiceUrl,
      from: "+14155550100",
      to: other.number,
      authToken: TWILIO_TOKEN,
    });
    // A backend that fails: the built-in apology decides the call.
    const failing = await setup((res) => res.writeHead(500).end("down"), { account: s.account });
    const c = await simulateInboundCall({
      engineUrl: s.account.engineVoiceUrl,
      from: "+14155550100",
      to: failing.number,
      authToken: TWILIO_TOKEN,
    });
    await callOf(s.account, a.callSid);
    await callOf(s.account, b.callSid);
    await callOf(s.account, c.callSid);
    const sids = async (q: string) =>
      (await s.account.as("GET", `/api/calls${q}`)).body.calls.map((c: any) => c.callSid);
    expect(await sids("")).toEqual([c.callSid, b.callSid, a.callSid]);
    expect(await sids("?answer=xml")).toEqual([b.callSid, a.callSid]);
    expect(await sids("?answer=fallback-url,fallback-actions,fallback-twiml,fallback")).toEqual([c.callSid]);
    expect(await sids("?answer=fallback,xml")).toEqual([c.callSid, b.callSid, a.callSid]);
    expect(await sids(`?answer=reject&phoneNumberId=${failing.numberId}`)).toEqual([]);
    expect(await sids(`?phoneNumberId=${other.numberId}`)).toEqual([b.callSid]);
    expect(await sids(`?callSid=${a.callSid}`)).toEqual([a.callSid]);
    expect(await sids("?direction=outbound")).toEqual([]);
    expect(await sids(`?direction=inbound&status=completed&answer=xml`)).toEqual([b.callSid, a.callSid]);
    expect(await sids(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    expect(
      await sids(
        `?until=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}&since=2020-01-01T00:00:00Z`,
      ),
    ).toHaveLength(3);

    for (const bad of [
      "?answer=",
      "?answer=nope",
      "?answer=xml,",
      "?answer=xml;fallback",
      "?limit=0",
      "?limit=101",
      "?status=exploded",
      "?since=yesterday",
      "?cursor=not-a-cursor",
      `?cursor=${Buffer.from("2026-01-01T00:00:00.000Z|x' OR 1=1").toString("base64url")}`,
    ]) {
      const res = await s.account.as("GET", `/api/calls${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
    }
  });

  it("cursor paging is stable while new calls arrive", async () => {
    const s = await setup((res) => res.end(XML));
    const addCalls = (n: number, offsetSeconds: number) =>
      seed("permissive").calls(
        Array.from({ length: n }, (_, i) => ({
          // Random ids: the tie-break order is not the order of the inserts.
          id: `pg${randomBytes(16).toString("hex")}`,
          accountId: s.account.id,
          phoneNumberId: s.numberId,
          toNumber: s.number,
          onCallStartUrl: "",
          onCallEndUrl: "",
          createdAt: fromNow(`${offsetSeconds + Math.floor((i + 1) / 3)} seconds`),
        })),
      );
    // Groups of three share a createdAt: the id breaks the tie.
    await addCalls(25, -1000);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await s.account.as("GET", `/api/calls?limit=4${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.calls.length).toBeLessThanOrEqual(4);
      seen.push(...res.body.calls.map((c: any) => c.callSid));
      cursor = res.body.nextCursor;
      // New calls arrive between pages: they are newer, so they never shift the pages still to come.
      if (pages++ === 1) await addCalls(5, 0);
    } while (cursor);
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    const all = await s.account.as("GET", "/api/calls?limit=100");
    expect(all.body.calls).toHaveLength(30);
    expect(all.body.calls.slice(5).map((c: any) => c.callSid)).toEqual(seen);
  });

  it("another account's call is not found, and never listed", async () => {
    const s = await setup((res) => res.writeHead(200, { "content-type": "text/xml" }).end(XML));
    const played = await simulateInboundCall({
      engineUrl: s.account.engineVoiceUrl,
      from: "+14155550100",
      to: s.number,
      authToken: TWILIO_TOKEN,
    });
    await callOf(s.account, played.callSid);
    const stranger = await newActiveAccount({ server: "permissive" });
    const res = await stranger.as("GET", `/api/calls/${played.callSid}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
    expect((await stranger.as("GET", `/api/calls/CA${"0".repeat(32)}`)).body).toEqual(res.body);
    expect((await stranger.as("GET", "/api/calls")).body.calls).toEqual([]);
    expect((await stranger.as("GET", `/api/calls?callSid=${played.callSid}`)).body.calls).toEqual([]);
    expect((await stranger.as("GET", `/api/calls?phoneNumberId=${s.numberId}`)).body.calls).toEqual([]);
    // A cursor is only a position: another account's gives nothing of the first account's.
    const mine = await s.account.as("GET", "/api/calls?limit=1");
    expect(mine.body.calls).toHaveLength(1);
    const noAuth = await fetch(new URL("/api/calls", s.account.engineVoiceUrl));
    expect(noAuth.status).toBe(401);
  });
});
