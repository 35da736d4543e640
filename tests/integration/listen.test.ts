import { type ChildProcess, spawn } from "node:child_process";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { startBuiltServer, type BuiltServer } from "../../scripts/built-server";
import { simulateInboundCall } from "../../src/twilio-simulator/twilio-simulator";
import { baseUrlOf, newActiveAccount, numberBody, randomUsNumber, type TestAccount } from "../support/api";
import { startReceiver } from "../support/receiver";
import { TEST_AUTH_SECRET } from "../support/test-secrets";
import { until } from "../support/until";

// docs/decisions.md §19: `routekit listen` (the real CLI, sdk/src/cli.ts, as a process) against the built
// permissive server (CALLBACK_START_TIMEOUT_MS=1500, VOICE_ANSWER_BUDGET_MS=4000), calls played by the Twilio
// simulator. A second instance on the same database checks the relay between instances.
const LOCAL_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>From localhost</Say></Response>';
const URL_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>From the URL</Say></Response>';
const FALLBACK_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Fallback</Say></Response>';

type Listener = { child: ChildProcess; out: string[]; err: string[]; exited: Promise<number | null> };
const listeners: Listener[] = [];

/** `routekit listen` as a user runs it: the key and service from the environment. */
async function startListener(opts: { apiKey: string; baseUrl: string; forwardTo: string }): Promise<Listener> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "sdk/src/cli.ts", "listen", "--forward-to", opts.forwardTo],
    {
      env: { ...process.env, ROUTEKIT_API_KEY: opts.apiKey, ROUTEKIT_BASE_URL: opts.baseUrl },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const listener: Listener = {
    child,
    out: [],
    err: [],
    exited: new Promise((r) => child.once("exit", (code) => r(code))),
  };
  child.stdout!.setEncoding("utf8").on("data", (d: string) => listener.out.push(...d.split("\n").filter(Boolean)));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => listener.err.push(...d.split("\n").filter(Boolean)));
  listeners.push(listener);
  await until(
    () => listener.out.some((l) => l.includes("Ready")),
    `the listener's Ready (${listener.err.join(" ")})`,
    20_000,
  );
  return listener;
}

function stop(listener: Listener): Promise<number | null> {
  if (listener.child.exitCode === null) listener.child.kill("SIGTERM");
  return listener.exited;
}

let local: Awaited<ReturnType<typeof startReceiver>>;
let remote: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  // The developer's machine: answers call.started with TwiML, anything else 200.
  local = await startReceiver((r, res) => {
    const type = JSON.parse(r.body).type;
    if (type === "call.started") res.writeHead(200, { "content-type": "text/xml" }).end(LOCAL_TWIML);
    else res.writeHead(200).end("ok");
  });
  // The number's own URLs: what answers when nobody listens.
  remote = await startReceiver((r, res) =>
    r.path.endsWith("/start") ? res.writeHead(200, { "content-type": "text/xml" }).end(URL_TWIML) : res.end("ok"),
  );
});
afterAll(async () => {
  await Promise.all(listeners.map(stop));
  await local.close();
  await remote.close();
});

async function customer(listen = true, extra: Record<string, unknown> = {}) {
  const account = await newActiveAccount({ server: "permissive" });
  const number = randomUsNumber();
  const res = await account.as("POST", "/api/phone-numbers", {
    body: numberBody({
      phoneNumber: number,
      onCallStartUrl: remote.url(`/${account.id}/start`),
      onCallEndUrl: remote.url(`/${account.id}/end`),
      listen,
      ...extra,
    }),
  });
  expect(res.status, res.text).toBe(201);
  expect(res.body.phoneNumber.listen).toBe(listen);
  const secret = (await account.as("GET", "/api/account")).body.account.webhookSecret as string;
  return { account, number, numberId: res.body.phoneNumber.id as string, secret };
}

async function ring(account: TestAccount, number: string, engineVoiceUrl = account.engineVoiceUrl) {
  const started = performance.now();
  const played = await simulateInboundCall({
    engineUrl: engineVoiceUrl,
    from: "+14155550100",
    to: number,
    durationSeconds: 2,
  });
  return { callSid: played.callSid, answer: played.answer!.body, ms: performance.now() - started };
}

const forCall = (callSid: string, type: string) => (r: { body: string }) => {
  const e = JSON.parse(r.body);
  return e.type === type && e.data.callSid === callSid;
};

describe("routekit listen", () => {
  it("call.started reaches the listener, signed as in production, and its answer is the call's TwiML; call.ended follows", async () => {
    const { account, number, secret } = await customer();
    const forwardTo = local.url(`/${account.id}/hook`);
    await startListener({ apiKey: account.apiKey, baseUrl: baseUrlOf("permissive"), forwardTo });
    const { callSid, answer } = await ring(account, number);
    expect(answer).toContain("From localhost");
    const started = local.received.find(forCall(callSid, "call.started"))!;
    expect(started.path).toBe(`/${account.id}/hook`);
    // The customer's own verification runs unchanged on what the CLI forwarded.
    const verified = new Webhook(secret).verify(started.body, started.headers as Record<string, string>) as {
      type: string;
    };
    expect(verified.type).toBe("call.started");
    // call.ended is relayed too, signed, and recorded as a delivered attempt.
    const ended = await until(() => local.received.find(forCall(callSid, "call.ended")), "call.ended at the listener");
    expect(new Webhook(secret).verify(ended.body, ended.headers as Record<string, string>)).toMatchObject({
      type: "call.ended",
    });
    const deliveries = await until(async () => {
      const r = await account.as("GET", `/api/webhook-deliveries?callSid=${callSid}`);
      const d = r.body.deliveries?.find((x: { eventType: string; status: string }) => x.eventType === "call.ended");
      return d?.status === "DELIVERED" ? d : null;
    }, "call.ended delivered");
    expect(deliveries.attemptCount).toBe(1);
    // Nothing reached the number's URLs.
    expect(remote.received.filter((r) => r.path.startsWith(`/${account.id}/`))).toEqual([]);
  });

  it("a number without listen keeps its URL while a listener is connected; with no listener a listen number uses its URL", async () => {
    const { account, number } = await customer(false);
    const listener = await startListener({
      apiKey: account.apiKey,
      baseUrl: baseUrlOf("permissive"),
      forwardTo: local.url(`/${account.id}/hook`),
    });
    expect((await ring(account, number)).answer).toContain("From the URL");
    await stop(listener);
    const listened = await customer(true);
    expect((await ring(listened.account, listened.number)).answer).toContain("From the URL");
  });

  it("a slow listener: the number's fallback answers, as for a slow URL (docs/decisions.md §12)", async () => {
    const slow = await startReceiver((_r, res) => {
      setTimeout(() => res.writeHead(200, { "content-type": "text/xml" }).end(LOCAL_TWIML), 3_000);
    });
    try {
      const { account, number } = await customer(true, { answerTimeoutMs: 1000, fallback: { twiml: FALLBACK_TWIML } });
      await startListener({ apiKey: account.apiKey, baseUrl: baseUrlOf("permissive"), forwardTo: slow.url("/hook") });
      const { callSid, answer, ms } = await ring(account, number);
      expect(answer).toContain("Fallback");
      expect(ms).toBeLessThan(2_500);
      const call = (await account.as("GET", `/api/calls/${callSid}`)).body.call;
      expect(call.answer).toBe("fallback-twiml");
    } finally {
      await slow.close();
    }
  });

  it("two listeners each get every event; the first answer wins", async () => {
    const { account, number } = await customer();
    const late = await startReceiver((_r, res) => {
      setTimeout(() => res.writeHead(200, { "content-type": "text/xml" }).end(URL_TWIML), 400);
    });
    try {
      await startListener({ apiKey: account.apiKey, baseUrl: baseUrlOf("permissive"), forwardTo: late.url("/late") });
      await startListener({
        apiKey: account.apiKey,
        baseUrl: baseUrlOf("permissive"),
        forwardTo: local.url(`/${account.id}/fast`),
      });
      const { callSid, answer } = await ring(account, number);
      expect(answer).toContain("From localhost");
      await until(() => late.received.find(forCall(callSid, "call.started")), "call.started at the second listener");
      expect(local.received.filter(forCall(callSid, "call.started"))).toHaveLength(1);
      // Both get call.ended too.
      await until(() => late.received.find(forCall(callSid, "call.ended")), "call.ended at the slow listener");
      await until(() => local.received.find(forCall(callSid, "call.ended")), "call.ended at the fast listener");
    } finally {
      await late.close();
    }
  });

  it("a revoked key closes its socket (4001) and the CLI stops, saying why", async () => {
    const { account } = await customer();
    const key = await account.as("POST", "/api/api-keys", { body: { label: "laptop" } });
    expect(key.status).toBe(201);
    const listener = await startListener({
      apiKey: key.body.key,
      baseUrl: baseUrlOf("permissive"),
      forwardTo: local.url("/hook"),
    });
    const revokedAt = Date.now();
    expect((await account.as("DELETE", `/api/api-keys/${key.body.id}`)).status).toBe(200);
    expect(await listener.exited).toBe(1);
    expect(Date.now() - revokedAt).toBeLessThan(6_000);
    expect(listener.err.join("\n")).toMatch(/4001.*revoked/);
  });
});

/** A raw upgrade, for what the CLI never sends: its refusal's status and envelope. */
function upgrade(baseUrl: string, authorization?: string): Promise<{ status: number; body: any; ws?: WebSocket }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/api/listen`, {
      headers: authorization ? { authorization } : {},
    });
    ws.once("open", () => resolve({ status: 101, body: null, ws }));
    ws.once("unexpected-response", (_req, res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        text += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    ws.once("error", (e) => reject(e));
  });
}

describe("GET /api/listen refusals, before the upgrade", () => {
  it("no key, a malformed or revoked key: 401; a read-only key: 403; all in the envelope", async () => {
    const base = baseUrlOf("permissive");
    const { account } = await customer();
    expect(await upgrade(base)).toMatchObject({ status: 401, body: { error: { code: "UNAUTHORIZED" } } });
    expect(await upgrade(base, "Bearer rtk_nope")).toMatchObject({
      status: 401,
      body: { error: { code: "UNAUTHORIZED" } },
    });
    const readOnly = await account.as("POST", "/api/api-keys", { body: { scope: "read-only" } });
    expect(await upgrade(base, `Bearer ${readOnly.body.key}`)).toMatchObject({
      status: 403,
      body: { error: { code: "FORBIDDEN" } },
    });
    const revoked = await account.as("POST", "/api/api-keys", { body: {} });
    await account.as("DELETE", `/api/api-keys/${revoked.body.id}`);
    expect(await upgrade(base, `Bearer ${revoked.body.key}`)).toMatchObject({ status: 401 });
  });

  it("an account has at most 10 listeners: the 11th is 429", async () => {
    const { account } = await customer();
    const base = baseUrlOf("permissive");
    const open: WebSocket[] = [];
    try {
      for (let i = 0; i < 10; i++) {
        const r = await upgrade(base, `Bearer ${account.apiKey}`);
        expect(r.status).toBe(101);
        open.push(r.ws!);
      }
      expect(await upgrade(base, `Bearer ${account.apiKey}`)).toMatchObject({
        status: 429,
        body: { error: { code: "RATE_LIMITED" } },
      });
      // One closes: a place is free again.
      const closed = open.pop()!;
      await new Promise<void>((r) => {
        closed.once("close", () => r());
        closed.close();
      });
      await until(
        async () => {
          const r = await upgrade(base, `Bearer ${account.apiKey}`);
          if (r.ws) open.push(r.ws);
          return r.status === 101;
        },
        "a free place after a close",
        5_000,
        100,
      );
    } finally {
      for (const ws of open) ws.close();
    }
  });
});

describe.skipIf(inject("embedded"))("a listener on one instance, the call on another", () => {
  let second: BuiltServer;
  beforeAll(async () => {
    second = await startBuiltServer({
      name: "listen-second",
      env: {
        AUTH_SECRET: TEST_AUTH_SECRET,
        DATABASE_URL: inject("permissiveDatabaseUrl"),
        CALLBACK_ALLOW_PRIVATE: "true",
        CALLBACK_START_TIMEOUT_MS: "1500",
        VOICE_ANSWER_BUDGET_MS: "4000",
      },
    });
  }, 120_000);
  afterAll(async () => {
    await second?.stop();
  });

  it("call.started and call.ended cross instances through PostgreSQL, both ways", async () => {
    const { account, number, secret } = await customer();
    // Listener on the second instance; Twilio reaches the first.
    const listener = await startListener({
      apiKey: account.apiKey,
      baseUrl: second.baseUrl,
      forwardTo: local.url(`/${account.id}/x`),
    });
    const first = await ring(account, number);
    expect(first.answer).toContain("From localhost");
    const ended = await until(() => local.received.find(forCall(first.callSid, "call.ended")), "call.ended relayed");
    expect(new Webhook(secret).verify(ended.body, ended.headers as Record<string, string>)).toBeTruthy();
    await stop(listener);
    // Listener on the first; Twilio reaches the second.
    await startListener({ apiKey: account.apiKey, baseUrl: baseUrlOf("permissive"), forwardTo: local.url("/y") });
    const voiceOnSecond = second.baseUrl + new URL(account.engineVoiceUrl).pathname;
    const other = await ring(account, number, voiceOnSecond);
    expect(other.answer).toContain("From localhost");
  });
});
