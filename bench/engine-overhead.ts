// The engine's own overhead on inbound voice requests, against a customer backend that answers at once.
//   npx tsx bench/engine-overhead.ts [callsPerSecond=100] [seconds=20] [warmupSeconds=2]
// Starts the BUILT server (run `npm run build` first) on DATABASE_URL when set (use a scratch
// database), else on the embedded database in a temp DATA_DIR. Phase 1 sends the voice requests
// (`ringing`: the engine upserts the call and POSTs call.started to the backend); phase 2 sends each
// call's `completed` status callback (usage record + running totals + call.ended, one transaction).
// Phase 3, the steady state, sends both at once: each tick a new call's voice request and the
// `completed` callback of the call that started one second earlier, with all their deliveries.
// Arrivals are open-loop at a fixed rate, as Twilio sends them: a slow answer never delays the next call.
// BENCH_LIMITS=1 sets every guardrail (docs/decisions.md §17) on the account and its number, high enough never to
// refuse, so each request pays for the checks and the live-call count; compare with a run without it.
// SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server (Node 20 refuses it in NODE_OPTIONS).
// BENCH_SERVER_ENTRY=dist/… runs another server bundle; OTEL_EXPORTER_OTLP_ENDPOINT (passed on) turns tracing on.
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { startBuiltServer } from "../scripts/built-server";
import { newCallSid, SIMULATOR_ACCOUNT_SID } from "../src/twilio-simulator/twilio-simulator";

const rate = Number(process.argv[2] ?? 100);
const seconds = Number(process.argv[3] ?? 20);
const warmupSeconds = Number(process.argv[4] ?? 2);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (v: number, places = 2) => Math.round(v * 10 ** places) / 10 ** places;
// Linux /proc (NaN elsewhere). The host's busy share tells our load from other work on a shared
// machine; the server's CPU time (utime + stime, 10 ms ticks) is what a request costs its one thread.
function proc(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
const hostTicks = () => {
  const t = (proc("/proc/stat").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
  const all = t.reduce((a, b) => a + b, 0);
  return { busy: all - (t[3] ?? NaN) - (t[4] ?? NaN), all };
};
const cpuMs = (pid: number) => {
  const f = (proc(`/proc/${pid}/stat`).split(") ")[1] ?? "").split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};

// ---- the instant customer backend: answers call.started with TwiML, acknowledges call.ended
const handlingMs = new Map<string, number>(); // callSid → the backend's own handling time
let endedEvents = 0;
const backend = http.createServer((req, res) => {
  const arrived = performance.now();
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (req.url === "/start") {
      res.writeHead(200, { "content-type": "text/xml" }).end("<Response><Say>hi</Say></Response>");
      const sid = (JSON.parse(Buffer.concat(chunks).toString()) as { data: { callSid: string } }).data.callSid;
      handlingMs.set(sid, performance.now() - arrived);
    } else {
      endedEvents++;
      res.writeHead(200).end();
    }
  });
});
await new Promise<void>((r) => backend.listen(0, "127.0.0.1", r));
const backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;

// ---- the built server: LOG_LEVEL stays production's level, since the request log line is part of the cost
const server = await startBuiltServer({
  name: "bench-engine",
  env: { CALLBACK_ALLOW_PRIVATE: "true", LOG_LEVEL: process.env.LOG_LEVEL ?? "info" },
  nodeArgs: (process.env.SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean),
  // A variant of the server bundle (bench/observability-overhead.ts builds one without metrics).
  entry: process.env.BENCH_SERVER_ENTRY || undefined,
});
const { baseUrl, dataDir } = server;

async function api(method: string, p: string, opts: { body?: unknown; key?: string; ip: string }) {
  const headers = {
    "content-type": "application/json",
    "x-forwarded-for": opts.ip,
    ...(opts.key && { authorization: `Bearer ${opts.key}` }),
  };
  const res = await fetch(baseUrl + p, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
}

// ---- open-loop driver: request i leaves at t0 + i/rate, whatever the earlier ones are doing
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 }); // room for every request in flight
type Result = { ms: number; ok: boolean; status: number }; // status 0: no HTTP answer
function post(url: URL, params: Record<string, string>, expect: string): Promise<Result> {
  const body = new URLSearchParams(params).toString();
  const headers = {
    "content-type": "application/x-www-form-urlencoded",
    "content-length": Buffer.byteLength(body),
    "user-agent": "TwilioProxy/1.1",
  };
  return new Promise((resolve) => {
    const started = performance.now();
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", agent, headers },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => (text += c));
        res.on("end", () =>
          resolve({
            ms: performance.now() - started,
            ok: res.statusCode === 200 && text.includes(expect),
            status: res.statusCode ?? 0,
          }),
        );
      },
    );
    req.on("error", () => resolve({ ms: performance.now() - started, ok: false, status: 0 }));
    req.end(body);
  });
}
type Planned = { params: Record<string, string>; expect: string; kind: "voice" | "completed" };
async function drive(url: URL, total: number, plan: (i: number) => Planned[]) {
  const pending: Promise<Result & { callSid: string; i: number; kind: Planned["kind"] }>[] = [];
  let maxLagMs = 0;
  const [t0, cpu0, host0] = [performance.now(), cpuMs(server.child.pid!), hostTicks()];
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    if (due > performance.now()) await sleep(due - performance.now());
    maxLagMs = Math.max(maxLagMs, performance.now() - due); // the driver itself falling behind
    for (const { params, expect, kind } of plan(i))
      pending.push(post(url, params, expect).then((r) => ({ ...r, callSid: params.CallSid!, i, kind })));
  }
  const samples = await Promise.all(pending);
  const [wall, cpu, host] = [(performance.now() - t0) / 1000, cpuMs(server.child.pid!) - cpu0, hostTicks()];
  return { samples, maxLagMs, wall, cpu, hostBusy: (host.busy - host0.busy) / (host.all - host0.all) };
}
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => round(s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN);
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) };
};
function summarize(run: Awaited<ReturnType<typeof drive>>, warm: number, withBackend: boolean, kind?: Planned["kind"]) {
  const measured = run.samples.filter((s) => s.i >= warm && (!kind || s.kind === kind)); // the warm-up requests are left out
  const ok = measured.filter((s) => s.ok);
  const errorsByStatus: Record<number, number> = {};
  for (const s of measured) if (!s.ok) errorsByStatus[s.status] = (errorsByStatus[s.status] ?? 0) + 1;
  return {
    requests: measured.length,
    errors: measured.length - ok.length,
    errorsByStatus,
    throughputPerSecond: round(run.samples.length / run.wall, 1),
    maxDriverLagMs: round(run.maxLagMs, 1),
    serverCpuMsPerRequest: round(run.cpu / run.samples.length), // in the steady state: per request of either kind
    hostCpuBusyPercent: Math.round(100 * run.hostBusy), // all cores: server, database, this driver, anyone else
    latencyMs: stats(ok.map((s) => s.ms)),
    ...(withBackend && {
      backendHandlingMs: stats(ok.map((s) => handlingMs.get(s.callSid) ?? NaN)),
      overheadMs: stats(ok.map((s) => s.ms - (handlingMs.get(s.callSid) ?? 0))),
    }),
  };
}

try {
  // ---- an active account with one number pointing at the backend
  const ip = `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`; // its own client address (TRUST_PROXY)
  const reg = await api("POST", "/api/auth/register", {
    ip,
    body: { email: `bench-${Date.now()}@example.com`, password: "benchmark-password" },
  });
  await (await fetch(reg.checkoutUrl as string, { method: "POST", redirect: "manual" })).text(); // local billing: the Pay button POSTs
  const number = `+1${randomInt(200, 1000)}${randomInt(200, 1000)}${String(randomInt(0, 10000)).padStart(4, "0")}`;
  await api("POST", "/api/phone-numbers", {
    ip,
    key: reg.apiKey,
    body: { phoneNumber: number, onCallStartUrl: `${backendUrl}/start`, onCallEndUrl: `${backendUrl}/end` },
  });
  const withLimits = process.env.BENCH_LIMITS === "1";
  if (withLimits) {
    await api("PUT", "/api/account/limits", {
      ip,
      key: reg.apiKey,
      body: { monthlyBudget: 1_000_000_000, hardCap: true, maxConcurrentCalls: 1_000_000 },
    });
    const [n] = (await api("GET", "/api/phone-numbers", { ip, key: reg.apiKey })).phoneNumbers;
    await api("PATCH", `/api/phone-numbers/${n.id}`, { ip, key: reg.apiKey, body: { dailyMinuteCap: 1_440_000 } });
  }
  const engine = new URL(reg.engineVoiceUrl as string);

  const total = Math.round(rate * (seconds + warmupSeconds));
  const warm = Math.round(rate * warmupSeconds);
  const calls = Array.from({ length: 2 * total }, () => ({
    CallSid: newCallSid(),
    From: `+1415555${String(randomInt(0, 10000)).padStart(4, "0")}`,
  }));
  const base = (i: number) => ({
    ...calls[i]!,
    AccountSid: SIMULATOR_ACCOUNT_SID,
    To: number,
    Direction: "inbound",
    ApiVersion: "2010-04-01",
  });
  const loadBefore = round(loadavg()[0]!);

  const voicePlan = (i: number): Planned => ({
    params: { ...base(i), CallStatus: "ringing" },
    expect: "<Say>hi</Say>",
    kind: "voice",
  });
  const completedPlan = (i: number): Planned => ({
    params: {
      ...base(i),
      CallStatus: "completed",
      CallbackSource: "call-progress-events",
      SequenceNumber: "0",
      CallDuration: String(1 + (i % 300)),
    },
    expect: "<Response",
    kind: "completed",
  });
  const voice = await drive(engine, total, (i) => [voicePlan(i)]);
  const completed = await drive(engine, total, (i) => [completedPlan(i)]);
  // The steady state: calls [total, 2·total) start while each one's predecessor by one second ends.
  const steady = await drive(engine, total, (i) => [
    voicePlan(total + i),
    ...(i >= rate ? [completedPlan(total + i - rate)] : []),
  ]);
  const ended = 2 * total - rate; // every call but the steady state's last second of starts
  for (let t = 0; endedEvents < ended && t < 100; t++) await sleep(100); // call.ended deliveries: a sanity check only
  const usage = await api("GET", "/api/usage/current", { ip, key: reg.apiKey });

  const v = summarize(voice, warm, true);
  const c = summarize(completed, warm, false);
  const sv = summarize(steady, warm, true, "voice");
  const sc = summarize(steady, warm, false, "completed");
  const result = {
    bench: "engine-overhead",
    database: process.env.DATABASE_URL ? "PostgreSQL" : "embedded (PGlite)",
    ratePerSecond: rate,
    seconds,
    warmupSeconds,
    loadAverage1m: loadBefore, // other work on this host skews every figure: check it was idle
    limits: withLimits,
    voice: { ...v, overheadP99Within15ms: (v.overheadMs?.p99 ?? Infinity) <= 15 },
    completed: c,
    steadyState: { voice: { ...sv, overheadP99Within15ms: (sv.overheadMs?.p99 ?? Infinity) <= 15 }, completed: sc },
    callEndedDelivered: endedEvents,
    usageCallsThisMonth: usage.currentMonth?.calls,
  };
  console.log(JSON.stringify(result));
  console.log(
    `voice request at ${rate}/s: p50 ${v.latencyMs.p50} ms, p99 ${v.latencyMs.p99} ms; backend's own p99 ${v.backendHandlingMs?.p99} ms, ` +
      `so our overhead p99 ${v.overheadMs?.p99} ms (${result.voice.overheadP99Within15ms ? "within" : "OVER"} 15 ms); ${v.errors} errors; ` +
      `server CPU ${v.serverCpuMsPerRequest} ms/request`,
  );
  console.log(
    `completed callback at ${rate}/s: p50 ${c.latencyMs.p50} ms, p99 ${c.latencyMs.p99} ms; ${c.errors} errors; server CPU ${c.serverCpuMsPerRequest} ms/request; ` +
      `${endedEvents}/${ended} call.ended delivered; usage shows ${usage.currentMonth?.calls} calls`,
  );
  console.log(
    `steady state (${rate} calls/s starting and ${rate}/s ending): voice p50 ${sv.latencyMs.p50} ms, p99 ${sv.latencyMs.p99} ms, ` +
      `our overhead p99 ${sv.overheadMs?.p99} ms; completed p50 ${sc.latencyMs.p50} ms, p99 ${sc.latencyMs.p99} ms; ${sv.errors + sc.errors} errors; ` +
      `server CPU ${sv.serverCpuMsPerRequest} ms/request`,
  );
} finally {
  agent.destroy();
  backend.closeAllConnections();
  backend.close();
  await server.stop({ keepData: Boolean(process.env.KEEP_BENCH_DATA) });
  if (process.env.KEEP_BENCH_DATA) console.log(`server log and data kept in ${dataDir}`);
}
process.exit(0);
