import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startBuiltServer, type BuiltServer } from "../../scripts/built-server";
import { handleEngineRequest } from "../../src/server/engine/handle-engine-request";
import { drainCallLogWrites } from "../../src/server/engine/write-later";
import { newCallSid, postSigned } from "../../src/twilio-simulator/twilio-simulator";
import { newAccount, newActiveAccount, numberBody, randomUsNumber, sql, type TestAccount, seed } from "../support/api";
import { startInProcess } from "../support/in-process";
import { ago } from "../support/seed";
import { startReceiver } from "../support/receiver";
import { TEST_AUTH_SECRET } from "../support/test-secrets";
import { until } from "../support/until";

// docs/decisions.md §17, §22: budgets, threshold alerts, the hard cap, the concurrency cap and the daily cap,
// on the permissive server (local backends) against its PostgreSQL. Calls are played by hand with Twilio's
// parameters: an account without a Twilio connection, so nothing needs signing and a call stays live exactly
// until the test sends its final status. A call of 60 s bills 1 minute: $0.02 at the default rate.
const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>hi</Say></Response>';
const REJECT_BUSY = /<Reject reason="busy"\s*\/>/;
const MINUTE = 0.02;

let backend: Awaited<ReturnType<typeof startReceiver>>;
let second: BuiltServer | undefined;

beforeAll(async () => {
  backend = await startReceiver((r, res) =>
    r.path.endsWith("/start") ? res.writeHead(200, { "content-type": "text/xml" }).end(XML) : res.end("ok"),
  );
});
afterAll(async () => {
  await second?.stop();
  await backend?.close();
});

type Setup = { account: TestAccount; number: string; numberId: string; tag: string };

async function setup(account?: TestAccount, extra: Record<string, unknown> = {}): Promise<Setup> {
  const acc = account ?? (await newActiveAccount({ server: "permissive" }));
  const tag = `${acc.id}-${Math.random().toString(36).slice(2, 8)}`;
  const number = randomUsNumber();
  const res = await acc.as("POST", "/api/phone-numbers", {
    body: numberBody({
      phoneNumber: number,
      onCallStartUrl: backend.url(`/${tag}/start`),
      onCallEndUrl: backend.url(`/${tag}/end`),
      onErrorUrl: backend.url(`/${tag}/error`),
      ...extra,
    }),
  });
  expect(res.status).toBe(201);
  return { account: acc, number, numberId: res.body.phoneNumber.id, tag };
}

const params = (s: Setup, CallSid: string, extra: Record<string, string>) => ({
  CallSid,
  AccountSid: `AC${"7".repeat(32)}`,
  From: "+14155550100",
  To: s.number,
  Direction: "inbound",
  ...extra,
});

/** The engine URL of `s` on another instance of the service (same database). */
const engineUrlOn = (s: Setup, baseUrl?: string) =>
  baseUrl ? s.account.engineVoiceUrl.replace(/^https?:\/\/[^/]+/, baseUrl) : s.account.engineVoiceUrl;

/** Twilio's voice request: the call comes in and waits for its TwiML. */
async function ring(s: Setup, callSid = newCallSid(), baseUrl?: string) {
  const res = await postSigned(engineUrlOn(s, baseUrl), params(s, callSid, { CallStatus: "ringing" }), "unsigned");
  expect(res.status).toBe(200);
  return { callSid, twiml: res.body, admitted: !/<Reject/.test(res.body) };
}

/** Twilio's final status. */
async function hangUp(s: Setup, callSid: string, seconds = 60, baseUrl?: string) {
  const res = await postSigned(
    engineUrlOn(s, baseUrl),
    params(s, callSid, { CallStatus: "completed", CallDuration: String(seconds) }),
    "unsigned",
  );
  expect(res.status).toBe(200);
}

/** One whole call of `seconds`. */
async function completeCall(s: Setup, seconds = 60) {
  const c = await ring(s);
  expect(c.admitted).toBe(true);
  await hangUp(s, c.callSid, seconds);
  return c.callSid;
}

const events = (s: Setup, kind: "end" | "error") =>
  backend.received.filter((r) => r.path === `/${s.tag}/${kind}`).map((r) => JSON.parse(r.body));
const thresholdEvents = (s: Setup) => events(s, "end").filter((e) => e.type === "usage.threshold_reached");

async function putLimits(account: TestAccount, body: Record<string, unknown>) {
  const res = await account.as("PUT", "/api/account/limits", { body });
  expect(res.status).toBe(200);
  return res.body;
}

async function live(account: TestAccount): Promise<{ count: number; slots: number }> {
  const { rows } = await sql("permissive").query(
    `SELECT (SELECT "liveCalls" FROM "AccountLimit" WHERE "accountId" = $1) AS count,
            (SELECT count(*)::int FROM "LiveCallSlot" WHERE "accountId" = $1) AS slots`,
    [account.id],
  );
  return { count: rows[0].count ?? 0, slots: rows[0].slots };
}

async function rejectedCall(account: TestAccount, callSid: string) {
  return until(async () => {
    const res = await account.as("GET", `/api/calls/${callSid}`);
    return res.status === 200 && res.body.call.endReason !== null && res.body.call;
  }, `call ${callSid} recorded`);
}

describe("GET/PUT /api/account/limits", () => {
  describe("happy", () => {
    it("defaults, a full PUT, and a PUT that omits fields resets them to their defaults", async () => {
      const a = await newAccount({ server: "permissive" });
      const fresh = await a.as("GET", "/api/account/limits");
      expect(fresh.status).toBe(200);
      expect(fresh.body.limits).toEqual({
        monthlyBudget: null,
        alertThresholds: [50, 80, 100],
        hardCap: false,
        maxConcurrentCalls: null,
      });
      expect(fresh.body.current).toMatchObject({ spent: 0, liveCalls: 0, thresholdsReached: [] });
      expect(fresh.body.current.month).toBe(new Date().toISOString().slice(0, 7));

      const put = await putLimits(a, {
        monthlyBudget: 125.5,
        alertThresholds: [90, 25],
        hardCap: true,
        maxConcurrentCalls: 3,
      });
      expect(put.limits).toEqual({
        monthlyBudget: 125.5,
        alertThresholds: [25, 90],
        hardCap: true,
        maxConcurrentCalls: 3,
      });
      expect((await a.as("GET", "/api/account/limits")).body.limits).toEqual(put.limits);

      // PUT replaces all four (docs/decisions.md §22).
      const partial = await putLimits(a, { monthlyBudget: 0 });
      expect(partial.limits).toEqual({
        monthlyBudget: 0,
        alertThresholds: [50, 80, 100],
        hardCap: false,
        maxConcurrentCalls: null,
      });
    });
  });

  describe("error", () => {
    it("each invalid field is a 400 VALIDATION_FAILED naming it, and nothing is stored", async () => {
      const a = await newAccount({ server: "permissive" });
      const cases: [Record<string, unknown>, string][] = [
        [{ monthlyBudget: 10.005 }, "monthlyBudget"],
        [{ monthlyBudget: -1 }, "monthlyBudget"],
        [{ monthlyBudget: "10" }, "monthlyBudget"],
        [{ alertThresholds: [] }, "alertThresholds"],
        [{ alertThresholds: [50, 50] }, "alertThresholds"],
        [{ alertThresholds: [0] }, "alertThresholds.0"],
        [{ alertThresholds: [101] }, "alertThresholds.0"],
        [{ alertThresholds: [10.5] }, "alertThresholds.0"],
        [{ alertThresholds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }, "alertThresholds"],
        [{ hardCap: "yes" }, "hardCap"],
        [{ maxConcurrentCalls: 0 }, "maxConcurrentCalls"],
        [{ maxConcurrentCalls: 2.5 }, "maxConcurrentCalls"],
      ];
      for (const [body, path] of cases) {
        const res = await a.as("PUT", "/api/account/limits", { body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe("VALIDATION_FAILED");
        expect(
          res.body.error.details.map((d: { path: string }) => d.path),
          JSON.stringify(body),
        ).toContain(path);
      }
      expect((await a.as("GET", "/api/account/limits")).body.limits.monthlyBudget).toBeNull();
    });
  });

  describe("security", () => {
    it("an account sees and changes only its own limits; no credential is a 401", async () => {
      const a = await newAccount({ server: "permissive" });
      const b = await newAccount({ server: "permissive" });
      await putLimits(a, { monthlyBudget: 5, hardCap: true, maxConcurrentCalls: 1 });
      expect((await b.as("GET", "/api/account/limits")).body.limits).toMatchObject({
        monthlyBudget: null,
        hardCap: false,
        maxConcurrentCalls: null,
      });
      await putLimits(b, { monthlyBudget: 7 });
      expect((await a.as("GET", "/api/account/limits")).body.limits).toMatchObject({ monthlyBudget: 5, hardCap: true });
      const anonymous = await fetch(`${inject("permissiveBaseUrl")}/api/account/limits`);
      expect(anonymous.status).toBe(401);
    });
  });
});

describe("a number's dailyMinuteCap", () => {
  it("is set on create, changed and cleared (null) by PATCH, shown with today's minutes; 0 is refused", async () => {
    const s = await setup(undefined, { dailyMinuteCap: 30 });
    const got = await s.account.as("GET", `/api/phone-numbers/${s.numberId}`);
    expect(got.body.phoneNumber).toMatchObject({ dailyMinuteCap: 30, minutesToday: 0 });
    const patched = await s.account.as("PATCH", `/api/phone-numbers/${s.numberId}`, { body: { dailyMinuteCap: 45 } });
    expect(patched.body.phoneNumber.dailyMinuteCap).toBe(45);
    // Omitted: unchanged.
    const other = await s.account.as("PATCH", `/api/phone-numbers/${s.numberId}`, {
      body: { onErrorUrl: null },
    });
    expect(other.body.phoneNumber.dailyMinuteCap).toBe(45);
    const cleared = await s.account.as("PATCH", `/api/phone-numbers/${s.numberId}`, { body: { dailyMinuteCap: null } });
    expect(cleared.body.phoneNumber.dailyMinuteCap).toBeNull();
    const bad = await s.account.as("PATCH", `/api/phone-numbers/${s.numberId}`, { body: { dailyMinuteCap: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe("dailyMinuteCap");
  });
});

describe("usage thresholds", () => {
  it("each is crossed once: usage.threshold_reached and an email, none again on the next call", async () => {
    const s = await setup();
    // $0.05: 50 % at $0.025, 80 % at $0.04, 100 % at $0.05.
    await putLimits(s.account, { monthlyBudget: 0.05, alertThresholds: [50, 80, 100] });
    await completeCall(s); // $0.02: none
    const second = await completeCall(s); // $0.04: 50 and 80 at once
    const crossed = await until(() => thresholdEvents(s).length >= 2 && thresholdEvents(s), "50 and 80");
    const month = new Date().toISOString().slice(0, 7);
    expect(crossed.map((e) => e.data).sort((a, b) => a.threshold - b.threshold)).toEqual([
      { threshold: 50, monthlyBudget: 0.05, spent: 0.04, month, callSid: second, phoneNumberId: s.numberId },
      { threshold: 80, monthlyBudget: 0.05, spent: 0.04, month, callSid: second, phoneNumberId: s.numberId },
    ]);
    await completeCall(s); // $0.06: 100
    await until(() => thresholdEvents(s).length >= 3, "100");
    // Each is what the served reference's webhooks say it is.
    const doc = await (await fetch(`${inject("permissiveBaseUrl")}/api/openapi.json`)).json();
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const schema = { ...doc.components.schemas.UsageThresholdReachedEvent, components: doc.components };
    for (const e of thresholdEvents(s)) expect(ajv.validate(schema, e), ajv.errorsText()).toBe(true);
    await completeCall(s); // $0.08: nothing new
    await until(() => events(s, "end").filter((e) => e.type === "call.ended").length === 4, "four call.ended");
    // Deliveries come from the queue at once; give a repeat its chance to show.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(
      thresholdEvents(s)
        .map((e) => e.data.threshold)
        .sort((a, b) => a - b),
    ).toEqual([50, 80, 100]);
    expect((await s.account.as("GET", "/api/account/limits")).body.current).toMatchObject({
      spent: 0.08,
      thresholdsReached: [50, 80, 100],
    });
    // The email, once per threshold, in the permissive server's outbox (no SMTP_URL there).
    const mails = await until(async () => {
      const found = (await outboxFor(s.account.email)).filter((m) => /budget/.test(m.subject));
      return found.length >= 3 && found;
    }, "three threshold emails");
    expect(mails.map((m) => m.subject).sort()).toEqual(
      [50, 80, 100].map((t) => `Routekit usage reached ${t} % of your ${month} budget`).sort(),
    );
  });

  it("a month boundary starts them again (time injected: the final status as received on the 1st)", async () => {
    const s = await setup();
    await putLimits(s.account, { monthlyBudget: 0.04, alertThresholds: [50] });
    await completeCall(s); // this month: 50 %
    await until(() => thresholdEvents(s).length === 1, "this month's 50 %");

    const inProcess = await startInProcess();
    try {
      const now = new Date();
      const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 5));
      const c = await ring(s);
      const routingToken = new URL(s.account.engineVoiceUrl).pathname.split("/").pop()!;
      const pathAndQuery = new URL(s.account.engineVoiceUrl).pathname;
      await handleEngineRequest({
        routingToken,
        pathAndQuery,
        callId: null,
        params: Object.assign(
          Object.create(null),
          params(s, c.callSid, { CallStatus: "completed", CallDuration: "60" }),
        ),
        signature: null,
        receivedAt: nextMonth,
      });
      // Run in this process, its delivery is queued on this process's own queue: read it where it is recorded.
      const { rows } = await sql("permissive").query(
        `SELECT payload FROM "WebhookDelivery" WHERE "accountId" = $1 AND "eventType" = 'usage.threshold_reached' ORDER BY "createdAt"`,
        [s.account.id],
      );
      const recorded = rows.map((r) => JSON.parse(r.payload).data);
      expect(recorded.map((d) => [d.month, d.threshold])).toEqual([
        [now.toISOString().slice(0, 7), 50],
        [nextMonth.toISOString().slice(0, 7), 50],
      ]);
      expect(recorded[1]).toMatchObject({ spent: MINUTE, monthlyBudget: 0.04, callSid: c.callSid });

      // The hard cap starts again too: this month is at the budget, next month is not.
      await putLimits(s.account, { monthlyBudget: 0.02, alertThresholds: [50], hardCap: true });
      expect((await ring(s)).twiml).toMatch(REJECT_BUSY);
      await putLimits(s.account, { monthlyBudget: 0.04, alertThresholds: [50], hardCap: true });
      await completeCall(s); // this month: $0.04, at the budget
      expect((await ring(s)).twiml).toMatch(REJECT_BUSY);
      const early = newCallSid();
      const twiml = await handleEngineRequest({
        routingToken,
        pathAndQuery,
        callId: null,
        params: Object.assign(Object.create(null), params(s, early, { CallStatus: "ringing" })),
        signature: null,
        receivedAt: new Date(nextMonth.getTime() + 60_000),
      });
      expect(twiml).toBe(XML);
      await drainCallLogWrites(5_000);
    } finally {
      await inProcess.stop();
    }
  });
});

describe("the hard cap", () => {
  it("rejects the next inbound call and outbound call exactly once the month reaches the budget", async () => {
    const s = await setup();
    await putLimits(s.account, { monthlyBudget: 0.04, hardCap: true, alertThresholds: [100] });
    const outbound = () =>
      s.account.as("POST", "/api/outbound", {
        body: {
          to: "+14155550177",
          from: s.number,
          onCallStartUrl: backend.url(`/${s.tag}/start`),
          onCallEndUrl: backend.url(`/${s.tag}/end`),
          providerAccountSid: `AC${"7".repeat(32)}`,
          providerAuthToken: "token",
        },
      });
    await completeCall(s); // $0.02
    // Under the budget: the call is answered, and outbound gets past the guard to Twilio.
    const before = await outbound();
    expect(before.body?.error?.code).not.toBe("SPEND_LIMIT_REACHED");
    await until(async () => (await live(s.account)).count === 0 || before.status === 201, "no slot kept");
    await completeCall(s); // $0.04: the budget is reached

    const refused = await ring(s);
    expect(refused.twiml).toMatch(REJECT_BUSY);
    const call = await rejectedCall(s.account, refused.callSid);
    expect(call).toMatchObject({
      status: "rejected",
      endReason: "spend-limit-reached",
      error: { code: "SPEND_LIMIT_REACHED" },
    });
    const [error] = await until(() => {
      const found = events(s, "error").filter((e) => e.data.callSid === refused.callSid);
      return found.length > 0 && found;
    }, "call.error");
    expect(error).toMatchObject({ type: "call.error", data: { error: { code: "SPEND_LIMIT_REACHED" } } });

    const out = await outbound();
    expect(out.status).toBe(402);
    expect(out.body.error.code).toBe("SPEND_LIMIT_REACHED");

    // Nothing more was billed; raising the budget lets calls in again at once.
    expect((await s.account.as("GET", "/api/account/limits")).body.current.spent).toBe(0.04);
    await putLimits(s.account, { monthlyBudget: 0.1, hardCap: true });
    expect((await ring(s)).admitted).toBe(true);
  });
});

describe("the concurrency cap", () => {
  it("holds with 2 live calls: a 3rd inbound is rejected, outbound is 429; a final status frees a slot", async () => {
    const s = await setup();
    await putLimits(s.account, { maxConcurrentCalls: 2 });
    const one = await ring(s);
    const two = await ring(s);
    expect([one.admitted, two.admitted]).toEqual([true, true]);
    // Status callbacks while live do not count again.
    const progress = await postSigned(
      s.account.engineVoiceUrl,
      params(s, one.callSid, { CallStatus: "in-progress" }),
      "unsigned",
    );
    expect(progress.status).toBe(200);

    const three = await ring(s);
    expect(three.twiml).toMatch(REJECT_BUSY);
    expect(await rejectedCall(s.account, three.callSid)).toMatchObject({
      status: "rejected",
      endReason: "concurrency-limit-reached",
      error: { code: "CONCURRENCY_LIMIT_REACHED" },
    });
    await until(
      () =>
        events(s, "error").some(
          (e) => e.data.callSid === three.callSid && e.data.error.code === "CONCURRENCY_LIMIT_REACHED",
        ),
      "call.error of the third",
    );
    // Twilio's final status of the rejected call frees nothing it never took.
    await hangUp(s, three.callSid, 0);
    expect(await live(s.account)).toEqual({ count: 2, slots: 2 });

    const out = await s.account.as("POST", "/api/outbound", {
      body: {
        to: "+14155550177",
        from: s.number,
        onCallStartUrl: backend.url(`/${s.tag}/start`),
        onCallEndUrl: backend.url(`/${s.tag}/end`),
        providerAccountSid: `AC${"7".repeat(32)}`,
        providerAuthToken: "token",
      },
    });
    expect(out.status).toBe(429);
    expect(out.body.error.code).toBe("CONCURRENCY_LIMIT");
    const { rows } = await sql("permissive").query(
      `SELECT count(*)::int AS n FROM "Call" WHERE "accountId" = $1 AND direction = 'outbound'`,
      [s.account.id],
    );
    expect(rows[0].n).toBe(0);

    // The end of one call frees its slot, once, however often Twilio repeats it.
    await hangUp(s, one.callSid);
    await hangUp(s, one.callSid);
    expect(await live(s.account)).toEqual({ count: 1, slots: 1 });
    expect((await ring(s)).admitted).toBe(true);
    expect((await ring(s)).admitted).toBe(false);
    expect((await s.account.as("GET", "/api/account/limits")).body.current.liveCalls).toBe(2);
  });

  it("without a cap nothing is counted; a cap set while calls are live counts them, and removing it drops the count", async () => {
    const s = await setup();
    const one = await ring(s);
    const two = await ring(s);
    expect([one.admitted, two.admitted]).toEqual([true, true]);
    // No cap: the calls are live, but no row of the account is written per call.
    expect(await live(s.account)).toEqual({ count: 0, slots: 0 });
    expect((await s.account.as("GET", "/api/account/limits")).body.current.liveCalls).toBe(2);

    // The cap counts the calls live when it is set: at 2 of 2, the next call is refused.
    const capped = await putLimits(s.account, { maxConcurrentCalls: 2 });
    expect(capped.current.liveCalls).toBe(2);
    expect(await live(s.account)).toEqual({ count: 2, slots: 2 });
    expect((await ring(s)).twiml).toMatch(REJECT_BUSY);
    await hangUp(s, one.callSid);
    expect(await live(s.account)).toEqual({ count: 1, slots: 1 });
    const three = await ring(s);
    expect(three.admitted).toBe(true);

    // Removed: the slots go, a later end frees nothing, and the GET still says what is live.
    await putLimits(s.account, { maxConcurrentCalls: null });
    expect(await live(s.account)).toEqual({ count: 0, slots: 0 });
    await hangUp(s, two.callSid);
    expect(await live(s.account)).toEqual({ count: 0, slots: 0 });
    expect((await s.account.as("GET", "/api/account/limits")).body.current.liveCalls).toBe(1);
    await hangUp(s, three.callSid);
  });

  it("a call that never gets its final status gives its slot back when it is closed (no-final-status)", async () => {
    const s = await setup();
    await putLimits(s.account, { maxConcurrentCalls: 1 });
    const lost = await ring(s);
    expect(lost.admitted).toBe(true);
    expect((await ring(s)).admitted).toBe(false);
    const inProcess = await startInProcess();
    try {
      const { closeUnfinishedCalls, NO_FINAL_STATUS_AFTER_MS } = await import(
        "../../src/server/services/reconciliation/close-unfinished-calls"
      );
      // Silent for just under the limit (so the servers' own job cannot reach it), then closed at an injected time.
      const [silent] = await seed("permissive").update(
        "Call",
        { callSid: lost.callSid },
        { lastRequestAt: ago("4 hours 5 minutes") },
      );
      const at = new Date(silent!.lastRequestAt.getTime() + NO_FINAL_STATUS_AFTER_MS + 1_000);
      await Promise.all([closeUnfinishedCalls({ now: at }), closeUnfinishedCalls({ now: at })]);
    } finally {
      await inProcess.stop();
    }
    expect(await live(s.account)).toEqual({ count: 0, slots: 0 });
    expect((await ring(s)).admitted).toBe(true);
  });
});

describe("the daily cap", () => {
  it("is per number and per UTC day", async () => {
    const s = await setup(undefined, { dailyMinuteCap: 2 });
    const other = await setup(s.account); // no cap
    await completeCall(s, 60);
    expect((await ring(s)).admitted).toBe(true); // 1 minute of 2: still taken (and left live)
    await completeCall(s, 60); // 2 of 2: the cap is reached
    const refused = await ring(s);
    expect(refused.twiml).toMatch(REJECT_BUSY);
    expect(await rejectedCall(s.account, refused.callSid)).toMatchObject({
      endReason: "daily-cap-reached",
      error: { code: "DAILY_CAP_REACHED" },
    });
    // Another number of the same account is not capped by it.
    expect((await ring(other)).admitted).toBe(true);
    const got = await s.account.as("GET", `/api/phone-numbers/${s.numberId}`);
    expect(got.body.phoneNumber).toMatchObject({ dailyMinuteCap: 2, minutesToday: 2 });
    // Yesterday's minutes are not today's: the cap counts the UTC day the calls ended on.
    await seed("permissive").update(
      "UsageTotal",
      { accountId: s.account.id, period: `n:${s.numberId}:${new Date().toISOString().slice(0, 10)}` },
      { period: `n:${s.numberId}:${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}` },
    );
    expect((await ring(s)).admitted).toBe(true);
    // Raising the cap lets the number's calls in at once, too.
    await s.account.as("PATCH", `/api/phone-numbers/${s.numberId}`, { body: { dailyMinuteCap: null } });
    expect((await ring(s)).admitted).toBe(true);
  });
});

describe("under concurrency, on two instances of the service", () => {
  beforeAll(async () => {
    second = await startBuiltServer({
      name: "limits-second",
      env: {
        DATABASE_URL: inject("permissiveDatabaseUrl"),
        AUTH_SECRET: TEST_AUTH_SECRET,
        CALLBACK_ALLOW_PRIVATE: "true",
        CALLBACK_START_TIMEOUT_MS: "1500",
        VOICE_ANSWER_BUDGET_MS: "4000",
        TWILIO_API_BASE_URL: "http://127.0.0.1:9",
        LOG_LEVEL: "warn",
      },
      readyTimeoutMs: 150_000,
    });
  }, 180_000);

  it("20 voice requests at once, half on each instance, with maxConcurrentCalls 5: exactly 5 are admitted", async () => {
    const s = await setup();
    await putLimits(s.account, { maxConcurrentCalls: 5 });
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => ring(s, newCallSid(), i % 2 ? second!.baseUrl : undefined)),
    );
    const admitted = burst.filter((c) => c.admitted);
    expect(admitted).toHaveLength(5);
    expect(burst.filter((c) => REJECT_BUSY.test(c.twiml))).toHaveLength(15);
    expect(await live(s.account)).toEqual({ count: 5, slots: 5 });
    // They all end at once, on either instance: every slot is given back, once.
    await Promise.all(admitted.map((c, i) => hangUp(s, c.callSid, 30, i % 2 ? second!.baseUrl : undefined)));
    expect(await live(s.account)).toEqual({ count: 0, slots: 0 });
  });

  it("calls completing at once around the budget: the overshoot is at most the calls that were live", async () => {
    const s = await setup();
    await putLimits(s.account, { monthlyBudget: 0.05, hardCap: true, alertThresholds: [100] });
    const calls = await Promise.all(
      Array.from({ length: 6 }, (_, i) => ring(s, newCallSid(), i % 2 ? second!.baseUrl : undefined)),
    );
    expect(calls.every((c) => c.admitted)).toBe(true);
    // All six end together, across both instances: they were live when the budget was reached, so all are billed.
    await Promise.all(calls.map((c, i) => hangUp(s, c.callSid, 60, i % 2 ? second!.baseUrl : undefined)));
    const limits = (await s.account.as("GET", "/api/account/limits")).body;
    expect(limits.current.spent).toBeCloseTo(6 * MINUTE, 6);
    expect(limits.current.thresholdsReached).toEqual([100]);
    // The next call is refused on either instance; exactly one threshold event went out.
    expect((await ring(s)).twiml).toMatch(REJECT_BUSY);
    expect((await ring(s, newCallSid(), second!.baseUrl)).twiml).toMatch(REJECT_BUSY);
    await until(() => thresholdEvents(s).length === 1, "one usage.threshold_reached");
    await new Promise((r) => setTimeout(r, 1_000));
    expect(thresholdEvents(s)).toHaveLength(1);
  });
});

/** The permissive server's outbox (docs/decisions.md §2: no SMTP_URL), messages to `to`. */
async function outboxFor(to: string): Promise<{ subject: string; text: string }[]> {
  const { readdirSync, readFileSync, existsSync } = await import("node:fs");
  const path = await import("node:path");
  const dir = path.join(inject("permissiveDataDir"), "outbox");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), "utf8")))
    .filter((m) => String(m.to).toLowerCase() === to.toLowerCase());
}
