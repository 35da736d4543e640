import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { siblingDatabase, startBuiltServer, type BuiltServer } from "../../scripts/built-server";
import { type ApiResponse, randomIp, randomUsNumber } from "../support/api";
import { encryptSecret } from "../../src/server/crypto/secret-box";
import { serverEncryptionKey } from "../support/connect-twilio";
import { checkContract } from "../support/contract";
import { type Received, startReceiver } from "../support/receiver";
import { now, seeds } from "../support/seed";
import { TEST_AUTH_SECRET } from "../support/test-secrets";
import { until } from "../support/until";

// docs/decisions.md §21: trying a number without a phone. The server is this file's own: its Twilio
// (TWILIO_API_BASE_URL) is a receiver that records every request, so "never sent to Twilio" is checked
// on the wire, and its customer backend is a real HTTP server answering by path.
const HELLO = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Hello from the backend</Say></Response>';
const FALLBACK_URL_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>The fallback backend</Say></Response>';

let server: BuiltServer;
let db: pg.Pool;
let twilio: Awaited<ReturnType<typeof startReceiver>>;
let backend: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  twilio = await startReceiver((_r, res) => res.writeHead(500).end("{}"));
  backend = await startReceiver((r, res) => {
    if (r.path.startsWith("/hang")) return; // never answers
    if (r.path.startsWith("/fail")) return res.writeHead(500).end("down");
    if (r.path.startsWith("/fallback"))
      return res.writeHead(200, { "content-type": "text/xml" }).end(FALLBACK_URL_TWIML);
    if (r.path.startsWith("/start")) return res.writeHead(200, { "content-type": "text/xml" }).end(HELLO);
    return res.end("ok");
  });
  const external = inject("embedded") ? undefined : inject("databaseUrl");
  server = await startBuiltServer({
    name: "it-simulate",
    env: {
      AUTH_SECRET: TEST_AUTH_SECRET,
      DATABASE_URL: external ? await siblingDatabase(external, "simulate") : undefined,
      CALLBACK_ALLOW_PRIVATE: "true",
      CALLBACK_START_TIMEOUT_MS: "1500",
      TWILIO_API_BASE_URL: twilio.url(""),
    },
  });
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
}, 120_000);

afterAll(async () => {
  await db?.end();
  await server?.stop({ keepData: Boolean(process.env.KEEP_TEST_DATA) });
  await twilio?.close();
  await backend?.close();
});

async function api(
  method: string,
  path: string,
  o: { token?: string; body?: unknown; ip?: string } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { "x-forwarded-for": o.ip ?? randomIp() };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(server.baseUrl + path, {
    method,
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const text = await res.text();
  const body = text ? JSON.parse(text) : undefined;
  await checkContract(method, path, res.status, body);
  return { status: res.status, body, text, headers: res.headers };
}

type Customer = {
  id: string;
  engineVoiceUrl: string;
  as(method: string, path: string, body?: unknown): Promise<ApiResponse>;
};

async function customer(opts: { paid?: boolean } = {}): Promise<Customer> {
  const ip = randomIp();
  const reg = await api("POST", "/api/auth/register", {
    ip,
    body: { email: `sim-${randomBytes(6).toString("hex")}@example.com`, password: "correct horse battery" },
  });
  expect(reg.status, reg.text).toBe(201);
  if (opts.paid !== false) await seeds(db).update("Account", { id: reg.body.account.id }, { status: "ACTIVE" });
  return {
    id: reg.body.account.id,
    engineVoiceUrl: reg.body.engineVoiceUrl,
    as: (method, path, body) => api(method, path, { token: reg.body.apiKey, ip, body }),
  };
}

/** A number of `c` whose URLs are the backend's, under a path of its own so its requests can be told apart. */
async function number(c: Customer, start = "/start", extra: Record<string, unknown> = {}) {
  const tag = randomBytes(4).toString("hex");
  const phoneNumber = randomUsNumber();
  const res = await c.as("POST", "/api/phone-numbers", {
    phoneNumber,
    onCallStartUrl: backend.url(`${start}/${tag}`),
    onCallEndUrl: backend.url(`/end/${tag}`),
    onErrorUrl: backend.url(`/error/${tag}`),
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.phoneNumber.id as string, phoneNumber, tag };
}

const at = (prefix: string, tag: string) => (r: Received) => r.path === `${prefix}/${tag}`;
const simulate = (c: Customer, id: string, body: Record<string, unknown> = {}) =>
  c.as("POST", `/api/phone-numbers/${id}/simulate-call`, body);

describe("POST /api/phone-numbers/{id}/simulate-call", () => {
  it("runs the inbound flow: call.started (test) to the number's URL, the answer as TwiML, a test call ended at once", async () => {
    const c = await customer();
    const n = await number(c);
    const res = await simulate(c, n.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.twiml).toBe(HELLO);
    const call = res.body.call;
    expect(call).toMatchObject({
      direction: "inbound",
      from: "+15005550006",
      to: n.phoneNumber,
      phoneNumberId: n.id,
      status: "completed",
      answer: "xml",
      error: null,
      endReason: "completed",
      durationSeconds: 0,
      billedMinutes: 0,
      costBreakdown: null,
      test: true,
    });
    expect(call.callSid).toMatch(/^CA[0-9a-f]{32}$/);
    // The timeline shows the call.started attempt and the TwiML, as for a real call.
    const started = call.timeline.find((e: { type: string }) => e.type === "call.started");
    expect(started).toMatchObject({ attempt: "primary", statusCode: 200, outcome: "xml" });
    expect(call.timeline.find((e: { type: string }) => e.type === "twiml")).toMatchObject({ twiml: HELLO });
    expect(call.timeline.some((e: { type: string }) => e.type === "usage")).toBe(false);

    // The backend got the signed call.started, with data.test = true.
    const got = backend.received.find(at("/start", n.tag));
    expect(got).toBeDefined();
    expect(got!.headers["webhook-signature"]).toMatch(/^v1,/);
    const event = JSON.parse(got!.body);
    expect(event).toMatchObject({ type: "call.started", data: { callSid: call.callSid, test: true } });

    // call.ended follows to onCallEndUrl, also marked test, nothing billed.
    const ended = await until(() => backend.received.find(at("/end", n.tag)), "call.ended");
    expect(JSON.parse(ended.body)).toMatchObject({
      type: "call.ended",
      data: { callSid: call.callSid, status: "completed", endReason: "completed", test: true },
    });
    expect(JSON.parse(ended.body).data.billedMinutes).toBeUndefined();

    // Same shape as GET /api/calls/{callSid}.
    const read = await c.as("GET", `/api/calls/${call.callSid}`);
    expect(read.status).toBe(200);
    expect(read.body.call).toMatchObject({ callSid: call.callSid, test: true, answer: "xml" });
  });

  it("takes a caller from the body, and refuses one that is not E.164", async () => {
    const c = await customer();
    const n = await number(c);
    const res = await simulate(c, n.id, { from: "+447700900123", direction: "inbound" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.call.from).toBe("+447700900123");
    const bad = await simulate(c, n.id, { from: "555-1234" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_FAILED");
    const outbound = await simulate(c, n.id, { direction: "outbound" });
    expect(outbound.status).toBe(400);
  });

  it("follows the number's fallbacks: a hanging primary gets answerTimeoutMs, then the stored actions", async () => {
    const c = await customer();
    const n = await number(c, "/hang", {
      answerTimeoutMs: 1000,
      fallback: { actions: [{ say: "Please hold" }, { dial: "+14155550199" }] },
    });
    const res = await simulate(c, n.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.twiml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Please hold</Say><Dial>+14155550199</Dial></Response>',
    );
    expect(res.body.call).toMatchObject({
      answer: "fallback-actions",
      error: { code: "START_CALLBACK_TIMEOUT" },
      test: true,
    });
    const error = await until(() => backend.received.find(at("/error", n.tag)), "call.error");
    expect(JSON.parse(error.body)).toMatchObject({
      type: "call.error",
      data: { takenOverBy: "fallback-actions", test: true, error: { code: "START_CALLBACK_TIMEOUT" } },
    });
  });

  it("follows a fallback URL, then the last resort when that fails too", async () => {
    const c = await customer();
    const tag = randomBytes(4).toString("hex");
    const viaUrl = await number(c, "/fail", { fallback: { url: backend.url(`/fallback/${tag}`) } });
    const res = await simulate(c, viaUrl.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.twiml).toBe(FALLBACK_URL_TWIML);
    expect(res.body.call).toMatchObject({ answer: "fallback-url", error: { code: "START_CALLBACK_STATUS" } });
    const fb = JSON.parse(backend.received.find(at("/fallback", tag))!.body);
    expect(fb.data).toMatchObject({ test: true, fallback: { reason: "START_CALLBACK_STATUS" } });
    const tries = res.body.call.timeline.filter((e: { type: string }) => e.type === "call.started");
    expect(tries.map((t: { attempt: string }) => t.attempt)).toEqual(["primary", "fallback-url"]);

    const last = await number(c, "/fail", { lastResort: { actions: [{ say: "Sorry, call back later" }] } });
    const apology = await simulate(c, last.id);
    expect(apology.status).toBe(200);
    expect(apology.body.twiml).toContain("<Say>Sorry, call back later</Say>");
    expect(apology.body.call.answer).toBe("fallback");
  });

  it("is never billed nor counted in usage, and the call log lists it only with ?test=true", async () => {
    const c = await customer();
    const n = await number(c);
    const before = await c.as("GET", "/api/usage/current");
    const sim = await simulate(c, n.id);
    expect(sim.status).toBe(200);
    await until(() => backend.received.find(at("/end", n.tag)), "call.ended");

    const usage = await c.as("GET", "/api/usage");
    expect(usage.status).toBe(200);
    expect(JSON.stringify(usage.body)).not.toContain(sim.body.call.callSid);
    const after = await c.as("GET", "/api/usage/current");
    expect(after.body.currentMonth).toEqual(before.body.currentMonth);
    expect(after.body.allTime).toEqual(before.body.allTime);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "UsageRecord" WHERE "callSid" = $1`, [
      sim.body.call.callSid,
    ]);
    expect(rows[0].n).toBe(0);

    const list = await c.as("GET", "/api/calls");
    expect(list.body.calls.map((x: { callSid: string }) => x.callSid)).not.toContain(sim.body.call.callSid);
    const listed = await c.as("GET", "/api/calls?test=true");
    expect(listed.body.calls.map((x: { callSid: string }) => x.callSid)).toEqual([sim.body.call.callSid]);
    expect(listed.body.calls[0].test).toBe(true);
    expect((await c.as("GET", "/api/calls?test=false")).body.calls).toEqual([]);
    expect((await c.as("GET", "/api/calls?test=yes")).status).toBe(400);
  });

  it("is not held back by limits, and takes nothing from them: daily cap, hard cap, concurrency", async () => {
    const c = await customer();
    const n = await number(c, "/start", { dailyMinuteCap: 1 });
    const day = new Date().toISOString().slice(0, 10);
    // The number has used its minute today, the month's budget is spent, one call is live at a cap of one.
    await seeds(db).usageTotal({
      accountId: c.id,
      period: `n:${n.id}:${day}`,
      calls: "1",
      billedMinutes: "1",
      totalCost: "0.02",
    });
    const limits = await c.as("PUT", "/api/account/limits", { monthlyBudget: 0, hardCap: true, maxConcurrentCalls: 1 });
    expect(limits.status, limits.text).toBe(200);
    await seeds(db).update("AccountLimit", { accountId: c.id }, { liveCalls: 1 });

    // The limits are in force: a real call now is refused (busy).
    const real = await fetch(c.engineVoiceUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        CallSid: `CA${randomBytes(16).toString("hex")}`,
        AccountSid: `AC${"1".repeat(32)}`,
        From: "+14155550100",
        To: n.phoneNumber,
        CallStatus: "ringing",
        Direction: "inbound",
      }),
    });
    expect(await real.text()).toContain('<Reject reason="busy"/>');

    for (let i = 0; i < 2; i++) {
      const res = await simulate(c, n.id);
      expect(res.status, res.text).toBe(200);
      expect(res.body.call).toMatchObject({ answer: "xml", endReason: "completed", test: true });
    }
    const current = await c.as("GET", "/api/account/limits");
    expect(current.body.current.liveCalls).toBe(1);
    expect(current.body.current.spent).toBe(0);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "LiveCallSlot" WHERE "accountId" = $1`, [c.id]);
    expect(rows[0].n).toBe(0);
  });

  it("is refused to an account that has not paid (402), and hides other accounts' numbers (404)", async () => {
    const owner = await customer();
    const n = await number(owner);
    const other = await customer();
    const foreign = await simulate(other, n.id);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("NOT_FOUND");
    expect((await simulate(other, "no-such-number")).status).toBe(404);

    const released = await number(owner);
    expect((await owner.as("DELETE", `/api/phone-numbers/${released.id}`)).status).toBe(200);
    expect((await simulate(owner, released.id)).status).toBe(404);

    const unpaid = await customer({ paid: false });
    const refused = await simulate(unpaid, n.id);
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe("PAYMENT_REQUIRED");
    const startsBefore = backend.received.filter(at("/start", n.tag)).length;
    expect(startsBefore).toBe(0);
  });

  it("allows 10 a minute per account: the 11th is 429", async () => {
    const c = await customer();
    const n = await number(c);
    // All at once: the bucket refills one every 6 s, so eleven sent one after another on a slow machine
    // could see a refill between the first and the last.
    const answers = await Promise.all(Array.from({ length: 11 }, () => simulate(c, n.id)));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(10).fill(200), 429]);
    const limited = answers.find((a) => a.status === 429)!;
    expect(limited.body.error.code).toBe("RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(backend.received.filter(at("/start", n.tag))).toHaveLength(10);
    // Another account is not held back by this one's.
    const d = await customer();
    expect((await simulate(d, (await number(d)).id)).status).toBe(200);
  });

  it("never reaches Twilio, even for an account connected to it; its call cannot be commanded", async () => {
    const c = await customer();
    const n = await number(c);
    // A Twilio connection, as PUT /api/twilio-connection leaves it (that route asks Twilio; the row is what counts).
    await seeds(db).twilioConnection({
      accountId: c.id,
      accountSid: `AC${randomBytes(16).toString("hex")}`,
      authTokenEnc: encryptSecret(randomBytes(16).toString("hex"), serverEncryptionKey),
      connectedAt: now(),
    });
    const res = await simulate(c, n.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.call).toMatchObject({ answer: "xml", test: true });
    const hangup = await c.as("POST", `/api/calls/${res.body.call.callSid}/hangup`, {});
    expect(hangup.status).toBe(409);
    expect(hangup.body.error.code).toBe("CALL_NOT_LIVE");
    await until(() => backend.received.find(at("/end", n.tag)), "call.ended");
  });

  it("sent Twilio nothing for any of the calls above", () => {
    expect(twilio.received).toEqual([]);
  });
});
