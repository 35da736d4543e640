// What a shadow backend (docs/decisions.md §23) costs the caller: the engine's voice latency at a fixed rate
// with a shadow on every call that answers in 5 s, against the same calls without one, side by side in one run.
//   npx tsx bench/shadow-overhead.ts [callsPerSecond=100] [seconds=10] [rounds=2] [accounts=64] [shadowDelayMs=5000]
// Starts the BUILT server (run `npm run build` first) on DATABASE_URL when set (use a scratch database), else
// on the embedded database. `accounts` accounts each get two numbers on the same primary backend (answers at
// once): one without a shadow, one with a shadow that answers after shadowDelayMs. Calls go round-robin over
// the accounts, so each holds rate / accounts × delay shadow requests in flight (64 accounts at 100/s and 5 s:
// about 8, under the bound of 10 per account): every call of the shadow phase is mirrored, none skipped.
// Phases alternate, open-loop at the rate given, after a warm-up: plain, shadow, plain, shadow, … (`rounds`
// pairs); each phase's voice latency p50/p99 and the server's CPU per request. The shadow phase waits for its
// shadows' answers (and their writes) to finish before the next plain phase starts, so no plain phase carries
// another's leftovers.
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { startBuiltServer } from "../scripts/built-server";
import { newCallSid, SIMULATOR_ACCOUNT_SID } from "../src/twilio-simulator/twilio-simulator";

const rate = Number(process.argv[2] ?? 100);
const seconds = Number(process.argv[3] ?? 10);
const rounds = Number(process.argv[4] ?? 2);
const accountCount = Number(process.argv[5] ?? 64);
const shadowDelayMs = Number(process.argv[6] ?? 5000);
const warmupSeconds = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (v: number, places = 2) => Math.round(v * 10 ** places) / 10 ** places;
const cpuMs = (pid: number) => {
  let stat = "";
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {}
  const f = (stat.split(") ")[1] ?? "").split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};

// ---- the backends: /ok answers TwiML at once (the primary); /shadow answers the same after shadowDelayMs
let shadowsAnswered = 0;
let shadowsReceived = 0;
const backend = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    if (req.url === "/ok") res.writeHead(200, { "content-type": "text/xml" }).end("<Response><Say>hi</Say></Response>");
    else if (req.url === "/shadow") {
      shadowsReceived++;
      setTimeout(() => {
        shadowsAnswered++;
        res.writeHead(200, { "content-type": "text/xml" }).end("<Response><Say>hi</Say></Response>");
      }, shadowDelayMs);
    } else res.writeHead(200).end();
  });
});
backend.maxConnections = 100_000;
await new Promise<void>((r) => backend.listen(0, "127.0.0.1", 4096, r));
const backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;

const server = await startBuiltServer({
  name: "bench-shadow-overhead",
  // The shadow gets the primary's timeout: above the shadow's 5 s, so each one is answered, not given up.
  env: {
    CALLBACK_ALLOW_PRIVATE: "true",
    CALLBACK_START_TIMEOUT_MS: String(shadowDelayMs + 2000),
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
  },
});

async function api(method: string, p: string, opts: { body?: unknown; key?: string; ip: string }) {
  const res = await fetch(server.baseUrl + p, {
    method,
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": opts.ip,
      ...(opts.key && { authorization: `Bearer ${opts.key}` }),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
type Sample = { ms: number; ok: boolean; i: number };
function post(url: URL, params: Record<string, string>, i: number): Promise<Sample> {
  const body = new URLSearchParams(params).toString();
  return new Promise((resolve) => {
    const started = performance.now();
    const done = (ok: boolean) => resolve({ ms: performance.now() - started, ok, i });
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        agent,
        headers: { "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => (text += c));
        res.on("end", () => done(res.statusCode === 200 && text.includes("<Say>hi</Say>")));
      },
    );
    req.on("error", () => done(false));
    req.end(body);
  });
}
const stats = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  const at = (p: number) => round(s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN);
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) };
};

type Line = { engine: URL; key: string; ip: string; plain: string; shadowed: string; shadowedId: string };

try {
  // ---- the accounts, each with a number without a shadow and one with
  const lines: Line[] = [];
  for (let a = 0; a < accountCount; a++) {
    const ip = `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;
    const reg = await api("POST", "/api/auth/register", {
      ip,
      body: { email: `bench-shadow-${Date.now()}-${a}@example.com`, password: "benchmark-password" },
    });
    await (await fetch(reg.checkoutUrl as string, { method: "POST", redirect: "manual" })).text();
    const number = async (shadow: boolean) => {
      const phoneNumber = `+1${randomInt(200, 1000)}${randomInt(200, 1000)}${String(randomInt(0, 10000)).padStart(4, "0")}`;
      const made = await api("POST", "/api/phone-numbers", {
        ip,
        key: reg.apiKey,
        body: { phoneNumber, onCallStartUrl: `${backendUrl}/ok`, onCallEndUrl: `${backendUrl}/end` },
      });
      if (shadow)
        await api("PATCH", `/api/phone-numbers/${made.phoneNumber.id}`, {
          ip,
          key: reg.apiKey,
          body: { shadow: { onCallStartUrl: `${backendUrl}/shadow` } },
        });
      return { phoneNumber, id: made.phoneNumber.id as string };
    };
    const plain = await number(false);
    const shadowed = await number(true);
    lines.push({
      engine: new URL(reg.engineVoiceUrl as string),
      key: reg.apiKey,
      ip,
      plain: plain.phoneNumber,
      shadowed: shadowed.phoneNumber,
      shadowedId: shadowed.id,
    });
  }

  const loadBefore = round(loadavg()[0]!);
  const total = Math.round(rate * (seconds + warmupSeconds));
  const warm = Math.round(rate * warmupSeconds);
  const phases: { name: string; shadow: boolean }[] = [{ name: "warm-up", shadow: false }];
  for (let r = 0; r < rounds; r++) phases.push({ name: "plain", shadow: false }, { name: "shadow", shadow: true });
  const results: {
    name: string;
    requests: number;
    errors: number;
    voiceLatencyMs: ReturnType<typeof stats>;
    serverCpuMsPerRequest: number;
  }[] = [];
  for (const phase of phases) {
    const pending: Promise<Sample>[] = [];
    const [t0, cpu0] = [performance.now(), cpuMs(server.child.pid!)];
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / rate;
      if (due > performance.now()) await sleep(due - performance.now());
      const line = lines[i % lines.length]!;
      const params = {
        CallSid: newCallSid(),
        AccountSid: SIMULATOR_ACCOUNT_SID,
        From: `+1415555${String(randomInt(0, 10000)).padStart(4, "0")}`,
        To: phase.shadow ? line.shadowed : line.plain,
        Direction: "inbound",
        CallStatus: "ringing",
        ApiVersion: "2010-04-01",
      };
      pending.push(post(line.engine, params, i));
    }
    const samples = (await Promise.all(pending)).filter((s) => s.i >= warm);
    const cpu = cpuMs(server.child.pid!) - cpu0;
    // The shadows still out finish before the next phase (their CPU is not this phase's, nor the next's).
    if (phase.shadow) while (shadowsAnswered < shadowsReceived) await sleep(100);
    await sleep(1000); // the call log's and the shadow results' writes settle between phases
    if (phase.name === "warm-up") continue;
    const ok = samples.filter((s) => s.ok);
    results.push({
      name: phase.name,
      requests: samples.length,
      errors: samples.length - ok.length,
      voiceLatencyMs: stats(ok.map((s) => s.ms)),
      serverCpuMsPerRequest: round(cpu / total),
    });
  }

  // Every shadow-phase call mirrored, none skipped: the reports' counts, summed over the accounts.
  let mirrored = 0;
  let skipped = 0;
  for (const line of lines) {
    const r = await api("GET", `/api/phone-numbers/${line.shadowedId}/shadow`, { ip: line.ip, key: line.key });
    mirrored += r.report.mirrored as number;
    skipped += r.report.skipped as number;
  }
  const p99 = (name: string) => results.filter((r) => r.name === name).map((r) => r.voiceLatencyMs.p99);
  const worst = (xs: number[]) => Math.max(...xs);
  console.log(
    JSON.stringify({
      bench: "shadow-overhead",
      ratePerSecond: rate,
      seconds,
      accounts: accountCount,
      shadowDelayMs,
      loadAverage1m: loadBefore,
      phases: results,
      shadowCalls: rounds * total,
      shadowRequestsSent: shadowsReceived,
      mirrored,
      skipped,
    }),
  );
  for (const r of results)
    console.log(
      `${r.name}: voice p50 ${r.voiceLatencyMs.p50} ms, p99 ${r.voiceLatencyMs.p99} ms; server CPU ${r.serverCpuMsPerRequest} ms/request; ${r.errors} errors`,
    );
  console.log(
    `worst voice p99: plain ${worst(p99("plain"))} ms, shadow ${worst(p99("shadow"))} ms (${round((worst(p99("shadow")) / worst(p99("plain")) - 1) * 100, 1)} %); ` +
      `shadow requests ${shadowsReceived} of ${rounds * total} calls; report: ${mirrored} mirrored, ${skipped} skipped`,
  );
} finally {
  agent.destroy();
  backend.closeAllConnections();
  backend.close();
  await server.stop({ keepData: false });
}
process.exit(0);
