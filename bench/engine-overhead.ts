// The engine's own overhead on inbound voice requests, against a customer backend that answers at once.
//   npx tsx bench/engine-overhead.ts [callsPerSecond=100] [seconds=20] [warmupSeconds=2]
// Starts the BUILT server (run `npm run build` first) on DATABASE_URL when set (use a scratch
// database), else on the embedded database in a temp DATA_DIR. Phase 1 sends the voice requests
// (`ringing`: the engine upserts the call and POSTs call.started to the backend); phase 2 sends each
// call's `completed` status callback (usage record + running totals + call.ended, one transaction).
// Arrivals are open-loop at a fixed rate, as Twilio sends them: a slow answer never delays the next call.
import { spawn } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { newCallSid, SIMULATOR_ACCOUNT_SID } from "../src/twilio-simulator/twilio-simulator";

const rate = Number(process.argv[2] ?? 100);
const seconds = Number(process.argv[3] ?? 20);
const warmupSeconds = Number(process.argv[4] ?? 2);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// The whole host's busy share (/proc/stat), to tell our load from other work on the machine.
const hostTicks = () => {
  try {
    const t = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { busy: t.reduce((a, b) => a + b, 0) - t[3]! - t[4]!, all: t.reduce((a, b) => a + b, 0) };
  } catch {
    return { busy: NaN, all: NaN };
  }
};
// The server's CPU time (Linux /proc, in clock ticks of 10 ms): how much of a core each request costs it.
const cpuMs = (pid: number) => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return NaN;
  }
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

// ---- the built server, started like tests/integration/support/global-setup.ts does
const dataDir = mkdtempSync(path.join(tmpdir(), "routekit-bench-engine-"));
const log = path.join(dataDir, "server.log");
const port = await new Promise<number>((resolve) => {
  const probe = http.createServer().listen(0, "127.0.0.1", () => {
    const p = (probe.address() as AddressInfo).port;
    probe.close(() => resolve(p));
  });
});
const baseUrl = `http://127.0.0.1:${port}`;
const env: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: "production",
  PORT: String(port),
  PUBLIC_BASE_URL: baseUrl,
  DATA_DIR: dataDir,
  AUTH_SECRET: randomBytes(32).toString("hex"),
  CALLBACK_ALLOW_PRIVATE: "true",
  TRUST_PROXY: "true",
  LOG_LEVEL: process.env.LOG_LEVEL ?? "info", // production's level: one log line per API request is part of the cost
};
// Node 20 refuses --cpu-prof in NODE_OPTIONS: SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server.
const nodeArgs = (process.env.SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean);
const server = spawn(process.execPath, [...nodeArgs, "--enable-source-maps", "dist/server.mjs"], { env, stdio: ["ignore", openSync(log, "a"), openSync(log, "a")] });
for (let ready = false; !ready; await sleep(200)) {
  if (server.exitCode !== null) throw new Error(`server exited:\n${readFileSync(log, "utf8").slice(-3000)}`);
  ready = await fetch(`${baseUrl}/api/ready`).then((r) => r.status === 200, () => false);
}

// ---- an active account with one number pointing at the backend
const ip = `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;
const api = async (method: string, p: string, body?: unknown, key?: string) => {
  const headers: Record<string, string> = { "content-type": "application/json", "x-forwarded-for": ip, ...(key && { authorization: `Bearer ${key}` }) };
  const res = await fetch(baseUrl + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
};
const reg = await api("POST", "/api/auth/register", { email: `bench-${Date.now()}@example.com`, password: "benchmark-password" });
await (await fetch(reg.checkoutUrl as string)).text(); // local billing: opening the checkout pays
const number = `+1${randomInt(200, 1000)}${randomInt(200, 1000)}${String(randomInt(0, 10000)).padStart(4, "0")}`;
await api("POST", "/api/phone-numbers", { phoneNumber: number, onCallStartUrl: `${backendUrl}/start`, onCallEndUrl: `${backendUrl}/end` }, reg.apiKey);
const engine = new URL(reg.engineVoiceUrl as string);

// ---- open-loop driver: request i leaves at start + i/rate whatever the earlier ones are doing
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
type Result = { ms: number; ok: boolean; status: number }; // status 0: no HTTP answer
type Sample = Result & { callSid: string; warmup: boolean };
function post(params: Record<string, string>, expect: string): Promise<Result> {
  const body = new URLSearchParams(params).toString();
  return new Promise((resolve) => {
    const started = performance.now();
    const req = http.request(
      { host: engine.hostname, port: engine.port, path: engine.pathname, method: "POST", agent,
        headers: { "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body), "user-agent": "TwilioProxy/1.1" } },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ ms: performance.now() - started, ok: res.statusCode === 200 && text.includes(expect), status: res.statusCode ?? 0 }));
      },
    );
    req.on("error", () => resolve({ ms: performance.now() - started, ok: false, status: 0 }));
    req.end(body);
  });
}
async function drive(total: number, warm: number, build: (i: number) => [string, Record<string, string>], expect: string) {
  const pending: Promise<Sample>[] = [];
  let maxLagMs = 0;
  const t0 = performance.now();
  const cpu0 = cpuMs(server.pid!);
  const host0 = hostTicks();
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    if (due > performance.now()) await sleep(due - performance.now());
    maxLagMs = Math.max(maxLagMs, performance.now() - due); // the driver itself falling behind
    const [callSid, params] = build(i);
    pending.push(post(params, expect).then((r) => ({ callSid, ...r, warmup: i < warm })));
  }
  const samples = await Promise.all(pending);
  const host1 = hostTicks();
  const hostBusyPercent = Math.round((100 * (host1.busy - host0.busy)) / (host1.all - host0.all));
  return { samples, maxLagMs, wallSeconds: (performance.now() - t0) / 1000, serverCpuMs: cpuMs(server.pid!) - cpu0, hostBusyPercent };
}
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const r = (v: number) => Math.round(v * 100) / 100;
  return { p50: r(pct(s, 50)), p90: r(pct(s, 90)), p99: r(pct(s, 99)), max: r(s[s.length - 1] ?? NaN) };
};
function summarize(run: Awaited<ReturnType<typeof drive>>, withBackend: boolean) {
  const measured = run.samples.filter((s) => !s.warmup);
  const ok = measured.filter((s) => s.ok);
  return {
    requests: measured.length,
    errors: measured.length - ok.length,
    errorsByStatus: measured.filter((s) => !s.ok).reduce<Record<number, number>>((acc, s) => ({ ...acc, [s.status]: (acc[s.status] ?? 0) + 1 }), {}),
    throughputPerSecond: Math.round((run.samples.length / run.wallSeconds) * 10) / 10,
    maxDriverLagMs: Math.round(run.maxLagMs * 10) / 10,
    serverCpuMsPerRequest: Math.round((run.serverCpuMs / run.samples.length) * 100) / 100,
    hostCpuBusyPercent: run.hostBusyPercent, // all cores, everything on the host (server, database, this driver, others)
    latencyMs: stats(ok.map((s) => s.ms)),
    ...(withBackend && {
      backendHandlingMs: stats(ok.map((s) => handlingMs.get(s.callSid) ?? NaN)),
      overheadMs: stats(ok.map((s) => s.ms - (handlingMs.get(s.callSid) ?? 0))),
    }),
  };
}

const total = Math.round(rate * (seconds + warmupSeconds));
const warm = Math.round(rate * warmupSeconds);
const calls = Array.from({ length: total }, () => ({ sid: newCallSid(), from: `+1415555${String(randomInt(0, 10000)).padStart(4, "0")}` }));
const base = (i: number) => ({ CallSid: calls[i]!.sid, AccountSid: SIMULATOR_ACCOUNT_SID, From: calls[i]!.from, To: number, Direction: "inbound", ApiVersion: "2010-04-01" });

const loadBefore = Math.round(loadavg()[0]! * 100) / 100;
const voice = await drive(total, warm, (i) => [calls[i]!.sid, { ...base(i), CallStatus: "ringing" }], "<Say>hi</Say>");
const status = await drive(total, warm, (i) => [calls[i]!.sid, { ...base(i), CallStatus: "completed", CallbackSource: "call-progress-events", SequenceNumber: "0", CallDuration: String(1 + (i % 300)) }], "<Response");
for (let t = 0; endedEvents < total && t < 100; t++) await sleep(100); // call.ended deliveries, for the sanity line only
const usage = await api("GET", "/api/usage/current", undefined, reg.apiKey);

const v = summarize(voice, true);
const c = summarize(status, false);
console.log(
  JSON.stringify({
    bench: "engine-overhead",
    database: process.env.DATABASE_URL ? "PostgreSQL" : "embedded (PGlite)",
    ratePerSecond: rate,
    seconds,
    warmupSeconds,
    loadAverage1m: loadBefore, // other work on this host skews every figure: check it was idle
    voice: v,
    completed: c,
    callEndedDelivered: endedEvents,
    usageCalls: usage.currentMonth?.calls,
  }),
);
console.log(`voice request at ${rate}/s: p50 ${v.latencyMs.p50} ms, p99 ${v.latencyMs.p99} ms (backend's own p99 ${v.backendHandlingMs?.p99} ms, our overhead p99 ${v.overheadMs?.p99} ms), ${v.errors} errors`);
console.log(`completed callback at ${rate}/s: p50 ${c.latencyMs.p50} ms, p99 ${c.latencyMs.p99} ms, ${c.errors} errors; ${endedEvents}/${total} call.ended delivered, usage shows ${usage.currentMonth?.calls} calls`);

agent.destroy();
backend.close();
backend.closeAllConnections();
server.kill("SIGTERM");
await new Promise((r) => (server.exitCode !== null ? r(null) : server.once("exit", r)));
if (process.env.KEEP_BENCH_DATA) console.log(`server log and data kept in ${dataDir}`);
else rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
