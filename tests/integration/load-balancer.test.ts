import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort, siblingDatabase, startBuiltServer, type BuiltServer } from "../../scripts/built-server";
import { newCallSid } from "../../src/twilio-simulator/twilio-simulator";
import { activeCustomerOn } from "../support/own-server";
import { startReceiver } from "../support/receiver";
import { TEST_AUTH_SECRET } from "../support/test-secrets";

// Several instances on one PostgreSQL behind a real load balancer (Debian's
// HAProxy, health-checked on /api/ready), as docs/operations.md describes
// scaling out. Calls flow through it while one instance is restarted
// gracefully (SIGTERM, then a replacement) and another is killed outright
// (SIGKILL). What must hold: no 5xx from the graceful restart; every final
// status HAProxy acknowledged is billed exactly once; every acknowledged call's
// call.ended reaches the backend (a killed instance's deliveries are taken over
// when their lease runs out). A real Prometheus scrapes an instance meanwhile.
// PostgreSQL only (the embedded database lives inside one instance).
const HAPROXY = "/usr/sbin/haproxy";
const PROMETHEUS = "/usr/bin/prometheus";
const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>balanced</Say></Response>';
const CALLS_PER_PHASE = 60;
const CALL_EVERY_MS = 40;

type Sent = { callSid: string; voice: number; completed: number };

function waitFor(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once("exit", r));
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | false>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe().catch(() => false as const);
    if (got !== false) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.skipIf(inject("embedded") || !existsSync(HAPROXY))("instances behind HAProxy", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "routekit-lb-"));
  let databaseUrl: string;
  let db: pg.Pool;
  let backend: Awaited<ReturnType<typeof startReceiver>>;
  const ports: number[] = [];
  const servers: (BuiltServer | null)[] = [];
  let haproxy: ChildProcess;
  let prometheus: ChildProcess | null = null;
  let prometheusPort = 0;
  let lbUrl: string;

  const serverEnv = () => ({
    AUTH_SECRET: TEST_AUTH_SECRET,
    DATABASE_URL: databaseUrl,
    CALLBACK_ALLOW_PRIVATE: "true",
    TWILIO_API_BASE_URL: "http://127.0.0.1:9",
    SHUTDOWN_GRACE_MS: "8000",
    // Longer than HAProxy takes to mark it down below (2 checks 250 ms apart, each up to 2 s), so no request
    // meets a closed listener while the instance is still in rotation: a refused connection's retry could
    // land on it again (CI saw three 503s from HAProxy before the drain).
    SHUTDOWN_DRAIN_MS: "2500",
    LOG_LEVEL: "warn",
  });
  const startInstance = (i: number) =>
    startBuiltServer({ name: `lb-${i}`, env: serverEnv(), port: ports[i], readyTimeoutMs: 150_000 });

  beforeAll(async () => {
    databaseUrl = await siblingDatabase(inject("databaseUrl"), `lb_${Date.now().toString(36)}`);
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    backend = await startReceiver((r, res) =>
      r.path === "/start" ? res.writeHead(200, { "content-type": "text/xml" }).end(XML) : res.writeHead(200).end(),
    );
    for (let i = 0; i < 4; i++) ports.push(await freePort());
    // The first starts alone (it migrates the new database); the other two together.
    servers[0] = await startInstance(0);
    const [b, c] = await Promise.all([startInstance(1), startInstance(2)]);
    servers[1] = b;
    servers[2] = c;
    servers[3] = null; // the replacement's slot, down until the rolling restart

    const lbPort = await freePort();
    lbUrl = `http://127.0.0.1:${lbPort}`;
    const config = path.join(dir, "haproxy.cfg");
    writeFileSync(
      config,
      [
        "global",
        "  maxconn 2000",
        "defaults",
        "  mode http",
        "  timeout connect 1s",
        "  timeout client 30s",
        "  timeout server 20s",
        // Without it a check's whole time is bounded by `inter`: a readiness answer slower than 250 ms on a busy
        // machine (the replacement booting beside it) failed the check, and with one failure enough, every
        // instance was marked down at once and HAProxy answered 503 itself (CI saw 33 such requests).
        "  timeout check 2s",
        // A request whose instance died under it goes to another one: every engine request is idempotent by CallSid.
        "  retries 3",
        "  option redispatch",
        "  option http-buffer-request",
        "  retry-on conn-failure empty-response",
        "frontend routekit",
        `  bind 127.0.0.1:${lbPort}`,
        "  default_backend instances",
        "backend instances",
        "  balance roundrobin",
        "  option httpchk GET /api/ready",
        "  http-check expect status 200",
        // As docs/operations.md, with checks four times as often, so the test's restart is seen sooner.
        "  default-server inter 250 fall 2 rise 2",
        ...ports.map((p, i) => `  server i${i} 127.0.0.1:${p} check`),
        "",
      ].join("\n"),
    );
    haproxy = spawn(HAPROXY, ["-f", config, "-db"], { stdio: ["ignore", "ignore", "pipe"] });
    let haproxyErr = "";
    haproxy.stderr?.on("data", (d) => (haproxyErr += d));
    await until("HAProxy to route to the instances", 20_000, async () => {
      if (haproxy.exitCode !== null) throw new Error(`haproxy exited: ${haproxyErr}`);
      return (await fetch(`${lbUrl}/api/ready`)).status === 200 || false;
    });

    if (existsSync(PROMETHEUS)) {
      prometheusPort = await freePort();
      const promConfig = path.join(dir, "prometheus.yml");
      writeFileSync(
        promConfig,
        [
          "global:",
          "  scrape_interval: 1s",
          "scrape_configs:",
          "  - job_name: routekit",
          `    static_configs: [{ targets: ["127.0.0.1:${ports[2]}"] }]`,
          "",
        ].join("\n"),
      );
      prometheus = spawn(
        PROMETHEUS,
        [
          `--config.file=${promConfig}`,
          `--storage.tsdb.path=${path.join(dir, "tsdb")}`,
          `--web.listen-address=127.0.0.1:${prometheusPort}`,
        ],
        { stdio: "ignore" },
      );
    }
  }, 300_000);

  afterAll(async () => {
    prometheus?.kill("SIGKILL");
    haproxy?.kill("SIGKILL");
    await Promise.all(servers.map((s) => (s && s.child.exitCode === null ? s.stop() : undefined)));
    await backend?.close();
    await db?.end();
    const admin = new pg.Client({ connectionString: inject("databaseUrl") });
    await admin.connect();
    await admin
      .query(`DROP DATABASE IF EXISTS "${new URL(databaseUrl).pathname.slice(1)}" WITH (FORCE)`)
      .catch(() => undefined);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An active account with one number, registered through the load balancer (its links followed there too). */
  async function customer() {
    const c = await activeCustomerOn(lbUrl, backend, { tag: "lb", via: lbUrl });
    return { engineUrl: c.engineVoiceUrl, number: c.number };
  }

  /** What each request not answered 200 got back, to say whose answer it was (HAProxy's or an instance's). */
  const refusals: string[] = [];

  /** CALLS_PER_PHASE calls through the balancer, each answered then completed (30 s: one billed minute); `during` runs meanwhile. */
  async function callsWhile(c: { engineUrl: string; number: string }, during: () => Promise<void>): Promise<Sent[]> {
    const post = async (form: Record<string, string>) => {
      try {
        const res = await fetch(c.engineUrl, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(form).toString(),
        });
        const body = await res.text();
        if (res.status !== 200)
          refusals.push(`${res.status} ${form.CallStatus}: ${body.slice(0, 120).replace(/\s+/g, " ")}`);
        return res.status;
      } catch {
        return 0; // no answer at all
      }
    };
    const one = async (): Promise<Sent> => {
      const callSid = newCallSid();
      const base = { CallSid: callSid, AccountSid: `AC${"8".repeat(32)}`, From: "+14155550100", To: c.number };
      const voice = await post({ ...base, Direction: "inbound", CallStatus: "ringing" });
      await new Promise((r) => setTimeout(r, 100));
      const completed = await post({ ...base, Direction: "inbound", CallStatus: "completed", CallDuration: "30" });
      return { callSid, voice, completed };
    };
    const calls: Promise<Sent>[] = [];
    const background = during();
    for (let i = 0; i < CALLS_PER_PHASE; i++) {
      calls.push(one());
      await new Promise((r) => setTimeout(r, CALL_EVERY_MS));
    }
    await background;
    return Promise.all(calls);
  }

  async function billed(sids: string[]): Promise<Map<string, number>> {
    const { rows } = await db.query<{ callSid: string; n: number }>(
      `SELECT "callSid", count(*)::int AS n FROM "UsageRecord" WHERE "callSid" = ANY($1) GROUP BY "callSid"`,
      [sids],
    );
    return new Map(rows.map((r) => [r.callSid, r.n]));
  }

  /** Every acknowledged call billed exactly once, and its call.ended received (one event id, however often sent). */
  async function expectNothingLost(sent: Sent[]) {
    const acknowledged = sent.filter((s) => s.completed === 200).map((s) => s.callSid);
    const counts = await billed(sent.map((s) => s.callSid));
    expect(
      [...counts.values()].every((n) => n === 1),
      "no call billed twice",
    ).toBe(true);
    expect(
      acknowledged.filter((sid) => counts.get(sid) !== 1),
      "acknowledged but not billed",
    ).toEqual([]);
    const endedIds = () => {
      const bySid = new Map<string, Set<string>>();
      for (const r of backend.received) {
        if (r.path !== "/end") continue;
        const event = JSON.parse(r.body) as { type: string; data: { callSid: string } };
        if (event.type !== "call.ended") continue;
        const ids = bySid.get(event.data.callSid) ?? new Set<string>();
        ids.add(String(r.headers["webhook-id"]));
        bySid.set(event.data.callSid, ids);
      }
      return bySid;
    };
    // A killed instance's deliveries come back when their lease expires (docs/events.md): well within a minute.
    await until("every acknowledged call's call.ended", 60_000, async () => {
      const got = endedIds();
      return acknowledged.every((sid) => got.has(sid)) || false;
    });
    for (const [sid, ids] of endedIds()) expect(ids.size, `call.ended of ${sid} has one event id`).toBe(1);
    return acknowledged.length;
  }

  it("a rolling restart (SIGTERM, then a replacement) answers every request: no 5xx, nothing lost", {
    timeout: 180_000,
  }, async () => {
    const c = await customer();
    const sent = await callsWhile(c, async () => {
      await new Promise((r) => setTimeout(r, 600));
      const leaving = servers[1]!;
      leaving.child.kill("SIGTERM");
      expect(await waitFor(leaving.child)).toBe(0);
      servers[1] = null;
      servers[3] = await startInstance(3);
    });
    const failed = sent.filter((s) => s.voice !== 200 || s.completed !== 200);
    console.log(
      `rolling restart: ${sent.length} calls, ${failed.length} requests not answered 200` +
        (refusals.length ? `:\n${refusals.join("\n")}` : ""),
    );
    expect(failed, "every request answered 200 through the balancer").toEqual([]);
    expect(await expectNothingLost(sent)).toBe(CALLS_PER_PHASE);
  });

  it("an instance killed outright (SIGKILL): acknowledged statuses billed once, their events delivered", {
    timeout: 180_000,
  }, async () => {
    const c = await customer();
    const sent = await callsWhile(c, async () => {
      await new Promise((r) => setTimeout(r, 800));
      servers[0]!.child.kill("SIGKILL");
      await waitFor(servers[0]!.child);
      servers[0] = null;
    });
    const acknowledged = await expectNothingLost(sent);
    const statuses = sent.flatMap((s) => [s.voice, s.completed]);
    console.log(
      `kill -9: ${sent.length} calls, ${acknowledged} final statuses acknowledged and billed once, ` +
        `${statuses.filter((s) => s >= 500).length} 5xx and ${statuses.filter((s) => s === 0).length} unanswered of ${statuses.length} requests`,
    );
    // HAProxy retries a request whose instance died under it, so few if any are lost to the kill.
    expect(acknowledged).toBeGreaterThan(CALLS_PER_PHASE * 0.9);
  });

  it.skipIf(!existsSync(PROMETHEUS))(
    "a real Prometheus scraped an instance: the engine's histogram has data",
    async () => {
      const value = await until("Prometheus to hold the engine's histogram", 30_000, async () => {
        const res = await fetch(
          `http://127.0.0.1:${prometheusPort}/api/v1/query?query=${encodeURIComponent("sum(routekit_engine_overhead_seconds_count)")}`,
        );
        const body = (await res.json()) as { data?: { result?: { value: [number, string] }[] } };
        const v = Number(body.data?.result?.[0]?.value[1] ?? 0);
        return v > 0 ? v : false;
      });
      expect(value).toBeGreaterThan(0);
      const up = await fetch(`http://127.0.0.1:${prometheusPort}/api/v1/query?query=up`);
      expect(JSON.stringify(await up.json())).toContain('"1"');
    },
  );
});
