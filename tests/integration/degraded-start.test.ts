import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import pg from "pg";
import { freePort, siblingDatabase, startBuiltServer, type BuiltServer } from "../../scripts/built-server";
import { newCallSid } from "../../src/twilio-simulator/twilio-simulator";
import { randomUsNumber } from "../support/api";
import { startReceiver } from "../support/receiver";
import { strayLogLines } from "../support/server-log";
import { TEST_AUTH_SECRET } from "../support/test-secrets";

// An instance started while its database refuses connections (docs/decisions.md §7):
// it listens, journals final statuses, apologises to callers, answers the rest
// 503 with Retry-After and is not ready; once the database comes back it
// migrates, starts its workers and applies the journal, with no restart.
// The database "comes back" as a TCP relay to the real PostgreSQL that starts
// listening on a port where nothing listened before (connections refused until then).
const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>hi</Say></Response>';

/** A port that refuses connections until `open()` relays it to PostgreSQL. */
async function refusingPort(target: { host: string; port: number }) {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  return {
    port,
    open: () =>
      new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", () => resolve())),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
}

const urlVia = (direct: string, port: number) => {
  const u = new URL(direct);
  u.hostname = "127.0.0.1";
  u.port = String(port);
  return u.href;
};

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const postForm = (url: string, form: Record<string, string>) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });

describe.skipIf(inject("embedded"))("an instance started while its database is down", () => {
  const servers: BuiltServer[] = [];
  const relays: Awaited<ReturnType<typeof refusingPort>>[] = [];
  let backend: Awaited<ReturnType<typeof startReceiver>>;
  let db: pg.Pool;
  let direct: string;
  let pgTarget: { host: string; port: number };
  const serverEnv = (databaseUrl: string) => ({
    AUTH_SECRET: TEST_AUTH_SECRET,
    DATABASE_URL: databaseUrl,
    CALLBACK_ALLOW_PRIVATE: "true",
    TWILIO_API_BASE_URL: "http://127.0.0.1:9",
  });

  beforeAll(async () => {
    direct = await siblingDatabase(inject("databaseUrl"), "degraded");
    const target = new URL(direct);
    pgTarget = { host: target.hostname, port: Number(target.port || 5432) };
    db = new pg.Pool({ connectionString: direct, max: 2 });
    backend = await startReceiver((_r, res) => res.writeHead(200, { "content-type": "text/xml" }).end(XML));
  });

  afterAll(async () => {
    for (const s of servers) await s.stop();
    for (const r of relays) await r.close();
    await db?.end();
    await backend?.close();
  });

  it("journals final statuses, apologises to callers, 503s the rest; applies and bills each status once when the database is back", {
    timeout: 180_000,
  }, async () => {
    // Calls that went live on a healthy instance.
    const healthy = await startBuiltServer({ name: "it-degraded-a", env: serverEnv(direct) });
    servers.push(healthy);
    const json = async (base: string, method: string, path: string, body?: unknown, token?: string) => {
      const res = await fetch(base + path, {
        method,
        headers: {
          "content-type": "application/json",
          "x-forwarded-for": `198.18.201.${(randomBytes(1)[0]! % 250) + 1}`,
          ...(token && { authorization: `Bearer ${token}` }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: res.status, headers: res.headers, body: (await res.json()) as any };
    };
    const registered = await json(healthy.baseUrl, "POST", "/api/auth/register", {
      email: `degraded-${randomBytes(6).toString("hex")}@example.com`,
      password: `pw-${randomBytes(8).toString("hex")}`,
    });
    expect(registered.status).toBe(201);
    const { apiKey, engineVoiceUrl, checkoutUrl } = registered.body as {
      apiKey: string;
      engineVoiceUrl: string;
      checkoutUrl: string;
    };
    expect((await fetch(checkoutUrl, { method: "POST", redirect: "manual" })).status).toBe(303);
    const number = randomUsNumber();
    expect(
      (
        await json(
          healthy.baseUrl,
          "POST",
          "/api/phone-numbers",
          { phoneNumber: number, onCallStartUrl: backend.url("/start"), onCallEndUrl: backend.url("/end") },
          apiKey,
        )
      ).status,
    ).toBe(201);
    const form = (CallSid: string) => ({
      CallSid,
      AccountSid: `AC${"5".repeat(32)}`,
      From: "+14155550100",
      To: number,
      Direction: "inbound",
    });
    const sids = Array.from({ length: 20 }, () => newCallSid());
    for (const sid of sids)
      expect((await postForm(engineVoiceUrl, { ...form(sid), CallStatus: "ringing" })).status).toBe(200);
    await healthy.stop();
    servers.splice(servers.indexOf(healthy), 1);

    // A new instance starts while its database refuses connections: it listens all the same.
    const relay = await refusingPort(pgTarget);
    relays.push(relay);
    const server = await startBuiltServer({
      name: "it-degraded-b",
      env: serverEnv(urlVia(direct, relay.port)),
      until: "live",
    });
    servers.push(server);
    const engineUrl = new URL(new URL(engineVoiceUrl).pathname, server.baseUrl).href;

    for (const [i, sid] of sids.entries()) {
      const res = await postForm(engineUrl, {
        ...form(sid),
        CallStatus: "completed",
        CallDuration: String(40 + i),
        CallbackSource: "call-progress-events",
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');
    }
    // A new call hears the apology and is hung up, rather than Twilio's "application error".
    const voice = await postForm(engineUrl, { ...form(newCallSid()), CallStatus: "ringing" });
    expect(voice.status).toBe(200);
    expect(voice.headers.get("content-type")).toMatch(/^text\/xml/);
    expect(await voice.text()).toMatch(
      /<Response><Say>We're sorry, this call cannot be completed right now\. Goodbye\.<\/Say><Hangup\/><\/Response>$/,
    );

    const api = await json(server.baseUrl, "GET", "/api/usage/current", undefined, apiKey);
    expect(api.status).toBe(503);
    expect(api.body.error.code).toBe("SERVICE_UNAVAILABLE");
    expect(api.headers.get("retry-after")).toBe("5");
    const login = await json(server.baseUrl, "POST", "/api/auth/login", {
      email: "x@example.com",
      password: "whatever-it-is",
    });
    expect(login.status).toBe(503);
    const page = await fetch(`${server.baseUrl}/login`);
    expect(page.status).toBe(503);
    expect(page.headers.get("retry-after")).toBe("5");
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect((await fetch(`${server.baseUrl}/api/health`)).status).toBe(200);
    const notReady = await json(server.baseUrl, "GET", "/api/ready");
    expect(notReady.status).toBe(503);
    expect(notReady.headers.get("retry-after")).toBe("5");
    expect(notReady.body).toMatchObject({
      status: "not-ready",
      error: { code: "SERVICE_UNAVAILABLE" },
      checks: { journal: "ok" },
      journal: { depth: sids.length, writable: true },
    });
    expect(notReady.body.checks.database).toMatch(/^unreachable: .*ECONNREFUSED/);
    expect(await billedCount(sids)).toBe(0);

    // The database comes back: no restart, the instance becomes ready and applies every journaled status once.
    await relay.open();
    await until("readiness", async () => (await fetch(`${server.baseUrl}/api/ready`)).status === 200);
    expect(await until("billing", async () => (await billedCount(sids)) === sids.length && sids.length)).toBe(
      sids.length,
    );
    await new Promise((r) => setTimeout(r, 3000)); // a second replay pass finds nothing left to apply twice
    const { rows } = await db.query(
      `SELECT c."callSid", c.status, c."durationSeconds", count(u.id)::int AS usage FROM "Call" c LEFT JOIN "UsageRecord" u ON u."callSid" = c."callSid"
       WHERE c."callSid" = ANY($1) GROUP BY c."callSid", c.status, c."durationSeconds"`,
      [sids],
    );
    expect(rows).toHaveLength(sids.length);
    for (const row of rows)
      expect(row).toMatchObject({ status: "completed", usage: 1, durationSeconds: 40 + sids.indexOf(row.callSid) });
    // The workers started: call.ended is delivered to the customer.
    await until(
      "call.ended deliveries",
      async () => backend.received.filter((r) => r.path === "/end").length >= sids.length,
    );
    const usage = await json(server.baseUrl, "GET", "/api/usage/current", undefined, apiKey);
    expect(usage.status).toBe(200);
    expect(usage.body.allTime.calls).toBe(sids.length);
    const ready = await json(server.baseUrl, "GET", "/api/ready");
    expect(ready.body).toMatchObject({
      status: "ready",
      checks: { database: "ok", journal: "ok" },
      journal: { depth: 0 },
    });
  });

  it("migrates a database it has never seen once that database comes back", { timeout: 120_000 }, async () => {
    const fresh = await siblingDatabase(inject("databaseUrl"), "degraded_fresh");
    const relay = await refusingPort(pgTarget);
    relays.push(relay);
    const server = await startBuiltServer({
      name: "it-degraded-c",
      env: serverEnv(urlVia(fresh, relay.port)),
      until: "live",
    });
    servers.push(server);
    expect((await fetch(`${server.baseUrl}/api/ready`)).status).toBe(503);
    await new Promise((r) => setTimeout(r, 3000)); // a few retries, logged once
    await relay.open();
    await until("readiness", async () => (await fetch(`${server.baseUrl}/api/ready`)).status === 200);
    const check = new pg.Client({ connectionString: fresh });
    await check.connect();
    try {
      const { rows } = await check.query(`SELECT to_regclass('"Account"') IS NOT NULL AS migrated`);
      expect(rows[0].migrated).toBe(true);
    } finally {
      await check.end();
    }
    const registered = await fetch(`${server.baseUrl}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "198.18.202.7" },
      body: JSON.stringify({
        email: `fresh-${randomBytes(6).toString("hex")}@example.com`,
        password: `pw-${randomBytes(8).toString("hex")}`,
      }),
    });
    expect(registered.status).toBe(201);
    // Every line the server wrote is JSON (no stray stack trace), and the outage was logged once, not per retry.
    expect(strayLogLines(server.log)).toEqual([]);
    const lines = readFileSync(server.log, "utf8").split("\n");
    const retries = lines.filter((l) => l.includes("retrying with backoff"));
    expect(retries.length).toBeLessThanOrEqual(1);
  });

  async function billedCount(sids: string[]): Promise<number> {
    return (await db.query(`SELECT count(*)::int AS n FROM "UsageRecord" WHERE "callSid" = ANY($1)`, [sids])).rows[0].n;
  }
});
