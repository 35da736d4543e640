import net from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import pg from "pg";
import { siblingDatabase, startBuiltServer, type BuiltServer } from "../../scripts/built-server";
import { newCallSid } from "../../src/twilio-simulator/twilio-simulator";
import { activeCustomerOn, jsonClient } from "../support/own-server";
import { startReceiver } from "../support/receiver";
import { TEST_AUTH_SECRET } from "../support/test-secrets";
import { until } from "../support/until";

/** A US number other than `number`, never registered here. */
function randomUsNumberLike(number: string): string {
  let other = number;
  while (other === number) other = `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`;
  return other;
}

// A PostgreSQL outage in the middle of calls (docs/decisions.md §7): a server of its
// own reaches its database through a TCP proxy the test cuts for 10 s while
// calls end. Twilio does not retry status callbacks, so every final status
// answered 2xx must be billed exactly once after recovery, and nothing may be
// a 500. PostgreSQL only: the embedded database lives inside the server.
const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>hi</Say></Response>';
const CALLS = 80;
const CALLBACK_EVERY_MS = 150;
const CUT_AFTER_MS = 1500;
const CUT_FOR_MS = 10_000;

/**
 * A TCP proxy to PostgreSQL that can be cut (open connections dropped, new ones refused: a database
 * stopped) or frozen (connections kept, nothing forwarded either way, new ones held unanswered: a
 * database that hangs, like a stopped process or a lost network), until restored.
 */
async function startCuttableProxy(target: { host: string; port: number }) {
  let cut = false;
  let frozen = false;
  const sockets = new Set<net.Socket>();
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const held: net.Socket[] = [];
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => s.destroy());
  };
  const connect = (client: net.Socket) => {
    const upstream = net.connect(target.port, target.host);
    track(upstream);
    const pair = { client, upstream };
    pairs.add(pair);
    client.pipe(upstream).pipe(client);
    client.on("close", () => {
      upstream.destroy();
      pairs.delete(pair);
    });
    upstream.on("close", () => client.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (cut) return void client.destroy();
    if (frozen) return void held.push(client);
    connect(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    freeze() {
      frozen = true;
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    restore() {
      cut = false;
      if (frozen) {
        frozen = false;
        for (const { client, upstream } of pairs) {
          client.pipe(upstream);
          upstream.pipe(client);
        }
        for (const client of held.splice(0)) if (!client.destroyed) connect(client);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

type Answer = {
  callSid: string;
  kind: "voice" | "completed";
  status: number;
  body: string;
  ms: number;
  during: boolean;
};

describe.skipIf(inject("embedded"))("a database outage while calls end", () => {
  let proxy: Awaited<ReturnType<typeof startCuttableProxy>>;
  let server: BuiltServer;
  let db: pg.Pool;
  let backend: Awaited<ReturnType<typeof startReceiver>>;

  let viaProxyUrl: string;
  const serverEnv = () => ({
    AUTH_SECRET: TEST_AUTH_SECRET,
    DATABASE_URL: viaProxyUrl,
    CALLBACK_ALLOW_PRIVATE: "true",
    TWILIO_API_BASE_URL: "http://127.0.0.1:9",
  });

  beforeAll(async () => {
    const direct = await siblingDatabase(inject("databaseUrl"), "outage");
    const target = new URL(direct);
    proxy = await startCuttableProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(direct);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(proxy.port);
    viaProxyUrl = viaProxy.href;
    server = await startBuiltServer({ name: "it-outage", env: serverEnv() });
    db = new pg.Pool({ connectionString: direct, max: 2 });
    backend = await startReceiver((_r, res) => res.writeHead(200, { "content-type": "text/xml" }).end(XML));
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await db?.end();
    await backend?.close();
  });

  const json = (method: string, path: string, body?: unknown, token?: string) =>
    jsonClient(server.baseUrl)(method, path, body, token);

  /** An active account with one number, on the outage server. */
  const customer = () => activeCustomerOn(server.baseUrl, backend, { tag: "outage" });

  const postForm = (url: string, form: Record<string, string>) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    });

  async function billedCount(sids: string[]): Promise<number> {
    return (await db.query(`SELECT count(*)::int AS n FROM "UsageRecord" WHERE "callSid" = ANY($1)`, [sids])).rows[0].n;
  }

  async function waitBilled(sids: string[], ms = 60_000): Promise<number> {
    const deadline = Date.now() + ms;
    let billed = 0;
    while (Date.now() < deadline) {
      billed = await billedCount(sids);
      if (billed >= sids.length) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    return billed;
  }

  it("every completed callback answered 2xx is billed exactly once after recovery; none is a 500", {
    timeout: 120_000,
  }, async () => {
    const { apiKey, engineVoiceUrl, number } = await customer();

    let cutNow = false;
    const answers: Answer[] = [];
    const post = async (callSid: string, kind: Answer["kind"], extra: Record<string, string>) => {
      const during = cutNow;
      const started = performance.now();
      const form = {
        CallSid: callSid,
        AccountSid: `AC${"5".repeat(32)}`,
        From: "+14155550100",
        To: number,
        Direction: "inbound",
        ...extra,
      };
      const res = await fetch(engineVoiceUrl, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form).toString(),
      });
      const answer = {
        callSid,
        kind,
        status: res.status,
        body: await res.text(),
        ms: performance.now() - started,
        during,
      };
      answers.push(answer);
      return answer;
    };

    // The calls are live before the outage.
    const sids = Array.from({ length: CALLS }, () => newCallSid());
    for (const sid of sids) expect((await post(sid, "voice", { CallStatus: "ringing" })).status).toBe(200);

    // Then they end, one every 150 ms, while the database goes away for 10 s; new calls keep arriving.
    const outage = (async () => {
      await new Promise((r) => setTimeout(r, CUT_AFTER_MS));
      proxy.cut();
      cutNow = true;
      await new Promise((r) => setTimeout(r, CUT_FOR_MS));
      cutNow = false;
      proxy.restore();
    })();
    const inFlight: Promise<Answer>[] = [];
    // Unsigned (no Twilio connection), so each lasts at most the seconds since its ringing plus 60 (docs/decisions.md §20): 30–59 s.
    const duration = (i: number) => 30 + (i % 30);
    for (let i = 0; i < CALLS; i++) {
      inFlight.push(
        post(sids[i]!, "completed", {
          CallStatus: "completed",
          CallDuration: String(duration(i)),
          CallbackSource: "call-progress-events",
        }),
      );
      if (i % 8 === 0) inFlight.push(post(newCallSid(), "voice", { CallStatus: "ringing" }));
      await new Promise((r) => setTimeout(r, CALLBACK_EVERY_MS));
    }
    await Promise.all(inFlight);
    await outage;

    // Nothing is a 500; every final status was answered 2xx inside Twilio's budget.
    expect(answers.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([]);
    const completions = answers.filter((a) => a.kind === "completed");
    expect(completions.map((a) => a.status)).toEqual(completions.map(() => 200));
    expect(Math.max(...completions.map((a) => a.ms))).toBeLessThan(10_000);
    expect(completions.filter((a) => a.during).length).toBeGreaterThan(30);
    // New calls to the number during the outage still reach its backend (its routing was seen before).
    const voiceDuring = answers.filter((a) => a.kind === "voice" && a.during);
    expect(voiceDuring.length).toBeGreaterThan(0);
    for (const a of voiceDuring) {
      expect(a.status).toBe(200);
      expect(a.body).toBe(XML);
    }

    // Once the database is back, the journaled statuses are applied: each call billed once.
    expect(await waitBilled(sids)).toBe(CALLS);
    await new Promise((r) => setTimeout(r, 3000)); // a second replay pass finds nothing left to apply twice
    const { rows } = await db.query(
      `SELECT c."callSid", c.status, c."durationSeconds", count(u.id)::int AS usage FROM "Call" c LEFT JOIN "UsageRecord" u ON u."callSid" = c."callSid"
       WHERE c."callSid" = ANY($1) GROUP BY c."callSid", c.status, c."durationSeconds"`,
      [sids],
    );
    expect(rows).toHaveLength(CALLS);
    for (const row of rows)
      expect(row).toMatchObject({
        status: "completed",
        usage: 1,
        durationSeconds: duration(sids.indexOf(row.callSid)),
      });
    const totals = await json("GET", "/api/usage/current", undefined, apiKey);
    expect(totals.status).toBe(200);
    expect(totals.body.allTime.calls).toBe(CALLS);
    const ended = await db.query(
      `SELECT count(*)::int AS n FROM "WebhookDelivery" WHERE "callSid" = ANY($1) AND "eventType" = 'call.ended'`,
      [sids],
    );
    expect(ended.rows[0].n).toBe(CALLS);
  });

  it("final statuses journaled when the instance stops during the outage are applied at its next start", {
    timeout: 120_000,
  }, async () => {
    const { apiKey, engineVoiceUrl, number } = await customer();
    const sids = Array.from({ length: 10 }, () => newCallSid());
    const form = (CallSid: string) => ({
      CallSid,
      AccountSid: `AC${"5".repeat(32)}`,
      From: "+14155550100",
      To: number,
      Direction: "inbound",
    });
    for (const sid of sids)
      expect((await postForm(engineVoiceUrl, { ...form(sid), CallStatus: "ringing" })).status).toBe(200);

    proxy.cut();
    for (const [i, sid] of sids.entries()) {
      const res = await postForm(engineVoiceUrl, {
        ...form(sid),
        CallStatus: "completed",
        CallDuration: String(60 + i),
        CallbackSource: "call-progress-events",
      });
      expect(res.status).toBe(200);
    }
    // The API, through Prisma, says "try again" too.
    const api = await json("GET", "/api/usage/current", undefined, apiKey);
    expect(api.status).toBe(503);
    expect(api.body.error.code).toBe("SERVICE_UNAVAILABLE");
    // The instance goes away before the database comes back; its journal stays on disk.
    const { dataDir } = server;
    await server.stop({ keepData: true });
    proxy.restore();
    expect(await billedCount(sids)).toBe(0);

    server = await startBuiltServer({ name: "it-outage", env: { ...serverEnv(), DATA_DIR: dataDir } });
    expect(await waitBilled(sids, 30_000)).toBe(sids.length);
    await new Promise((r) => setTimeout(r, 3000));
    const { rows } = await db.query(
      `SELECT "callSid", count(*)::int AS n FROM "UsageRecord" WHERE "callSid" = ANY($1) GROUP BY "callSid"`,
      [sids],
    );
    expect(rows.map((r) => r.n)).toEqual(sids.map(() => 1));
  });

  /**
   * docs/decisions.md §7: 30 s without the database, stopped or frozen, while calls keep coming. No voice
   * request is answered 503; a number this instance has seen reaches its backend, one it has not hears
   * the apology; every call answered during the outage is billed once afterwards, with its call.started
   * in the delivery log and its call.ended delivered. Some calls end during the outage, some after it.
   */
  for (const mode of ["cut", "freeze"] as const)
    it(`a 30 s outage (${mode === "cut" ? "stopped" : "frozen"}) with calls ringing: no 503, known numbers reach their backend, each call billed once with its events`, {
      timeout: 150_000,
    }, async () => {
      const OUTAGE_MS = 30_000;
      const { engineVoiceUrl, number } = await customer();
      const voice = (callSid: string, to = number) =>
        postForm(engineVoiceUrl, {
          CallSid: callSid,
          AccountSid: `AC${"5".repeat(32)}`,
          From: "+14155550100",
          To: to,
          Direction: "inbound",
          CallStatus: "ringing",
        });
      const end = (callSid: string, seconds: number) =>
        postForm(engineVoiceUrl, {
          CallSid: callSid,
          AccountSid: `AC${"5".repeat(32)}`,
          From: "+14155550100",
          To: number,
          Direction: "inbound",
          CallStatus: "completed",
          CallDuration: String(seconds),
          CallbackSource: "call-progress-events",
        });
      // One call before the outage: this instance has now seen the number's routing.
      const before = newCallSid();
      expect((await voice(before)).status).toBe(200);
      expect((await end(before, 5)).status).toBe(200);

      const statuses: number[] = [];
      const bodies: string[] = [];
      const during: string[] = [];
      const unseen = randomUsNumberLike(number);
      if (mode === "cut") proxy.cut();
      else proxy.freeze();
      const outageEnds = Date.now() + OUTAGE_MS;
      const endings: Promise<Response>[] = [];
      let i = 0;
      while (Date.now() < outageEnds - 2_000) {
        const sid = newCallSid();
        const res = await voice(sid);
        statuses.push(res.status);
        bodies.push(await res.text());
        during.push(sid);
        // Half end during the outage, half after it (their final status behind their creation in the journal).
        if (i % 2 === 0) endings.push(end(sid, 30));
        i++;
        await new Promise((r) => setTimeout(r, 1_000));
      }
      // A number this instance never saw: the apology, not a 503.
      const stranger = await voice(newCallSid(), unseen);
      expect(stranger.status).toBe(200);
      expect(await stranger.text()).toContain("<Say>");
      const endedDuring = await Promise.all(endings);
      expect(endedDuring.map((r) => r.status)).toEqual(endedDuring.map(() => 200));
      await new Promise((r) => setTimeout(r, Math.max(0, outageEnds - Date.now())));
      proxy.restore();
      for (const [k, sid] of during.entries()) if (k % 2 === 1) expect((await end(sid, 30)).status).toBe(200);

      expect(during.length).toBeGreaterThanOrEqual(10);
      expect(statuses).toEqual(during.map(() => 200));
      expect(bodies).toEqual(during.map(() => XML));
      // The backend was asked about every one of them, during the outage.
      const started = backend.received
        .filter((r) => r.path === "/start")
        .map((r) => JSON.parse(r.body).data.callSid as string);
      for (const sid of during) expect(started).toContain(sid);

      // Once the database is back: each call once, billed once, in the call log with its answer.
      expect(await waitBilled(during, 60_000)).toBe(during.length);
      await new Promise((r) => setTimeout(r, 3000)); // a later replay pass finds nothing left to apply twice
      const { rows } = await db.query(
        `SELECT c."callSid", c.status, c.answer, c."durationSeconds", count(DISTINCT u.id)::int AS usage,
                count(DISTINCT d.id) FILTER (WHERE d."eventType" = 'call.started')::int AS started,
                count(DISTINCT d.id) FILTER (WHERE d."eventType" = 'call.ended')::int AS ended
           FROM "Call" c LEFT JOIN "UsageRecord" u ON u."callSid" = c."callSid"
           LEFT JOIN "WebhookDelivery" d ON d."callSid" = c."callSid"
          WHERE c."callSid" = ANY($1) GROUP BY c."callSid", c.status, c.answer, c."durationSeconds"`,
        [during],
      );
      expect(rows).toHaveLength(during.length);
      for (const row of rows)
        expect(row).toMatchObject({ status: "completed", answer: "xml", usage: 1, started: 1, ended: 1 });
      // call.ended reached the backend for each.
      await until(
        () => {
          const ended = new Set(
            backend.received
              .filter((r) => r.path === "/end")
              .map((r) => JSON.parse(r.body))
              .filter((e) => e.type === "call.ended")
              .map((e) => e.data.callSid as string),
          );
          return during.every((sid) => ended.has(sid));
        },
        "call.ended delivered for every call answered during the outage",
        60_000,
      );
    });
});
