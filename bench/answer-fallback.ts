// The answer flow of docs/decisions.md §12 under load: voice requests at a fixed rate against four numbers.
//   npx tsx bench/answer-fallback.ts [callsPerSecond=100] [seconds=10] [warmupSeconds=2]
// Starts the BUILT server (run `npm run build` first) on DATABASE_URL when set (use a scratch
// database), else on the embedded database. Phases, each open-loop at the rate given:
//   plain     the backend answers at once; the number has no answer policy (as engine-overhead.ts);
//   policy    the same, with a fallback and a last resort configured (kept on every call, unused);
//   actions   the backend answers 500 at once; the number's stored fallback actions answer;
//   twiml     the backend answers 500 at once; the number's stored fallback TwiML answers.
// For the last two, "failure to answer" is the time from the backend having sent its 500 to the
// engine's TwiML reaching the caller (Twilio's side): one clock, this process's, on both ends. It
// does not include the call.error event's insert, which the engine queues after it answers.
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { startBuiltServer } from "../scripts/built-server";
import { newCallSid, SIMULATOR_ACCOUNT_SID } from "../src/twilio-simulator/twilio-simulator";

const rate = Number(process.argv[2] ?? 100);
const seconds = Number(process.argv[3] ?? 10);
const warmupSeconds = Number(process.argv[4] ?? 2);
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

// ---- the customer backend: /ok answers TwiML at once, /fail answers 500 at once; both note when they answered
const answeredAt = new Map<string, number>(); // callSid → when the backend's answer was written
const backend = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (req.url === "/ok") res.writeHead(200, { "content-type": "text/xml" }).end("<Response><Say>hi</Say></Response>");
    else if (req.url === "/fail") res.writeHead(500).end("down");
    else return void res.writeHead(200).end();
    try {
      const sid = (JSON.parse(Buffer.concat(chunks).toString()) as { data: { callSid: string } }).data.callSid;
      answeredAt.set(sid, performance.now());
    } catch {}
  });
});
await new Promise<void>((r) => backend.listen(0, "127.0.0.1", r));
const backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;

const server = await startBuiltServer({
  name: "bench-answer-fallback",
  env: { CALLBACK_ALLOW_PRIVATE: "true", LOG_LEVEL: process.env.LOG_LEVEL ?? "info" },
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

const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
type Sample = { ms: number; ok: boolean; doneAt: number; callSid: string; i: number };
function post(url: URL, params: Record<string, string>, expect: string): Promise<Sample> {
  const body = new URLSearchParams(params).toString();
  return new Promise((resolve) => {
    const started = performance.now();
    const done = (ok: boolean) => {
      const doneAt = performance.now();
      resolve({ ms: doneAt - started, ok, doneAt, callSid: params.CallSid!, i: -1 });
    };
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
        res.on("end", () => done(res.statusCode === 200 && text.includes(expect)));
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

try {
  const ip = `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  const reg = await api("POST", "/api/auth/register", {
    ip,
    body: { email: `bench-${Date.now()}@example.com`, password: "benchmark-password" },
  });
  await (await fetch(reg.checkoutUrl as string, { method: "POST", redirect: "manual" })).text();
  const engine = new URL(reg.engineVoiceUrl as string);
  const newNumber = async (path: string, policy: Record<string, unknown>) => {
    const phoneNumber = `+1${randomInt(200, 1000)}${randomInt(200, 1000)}${String(randomInt(0, 10000)).padStart(4, "0")}`;
    await api("POST", "/api/phone-numbers", {
      ip,
      key: reg.apiKey,
      body: { phoneNumber, onCallStartUrl: `${backendUrl}${path}`, onCallEndUrl: `${backendUrl}/end`, ...policy },
    });
    return phoneNumber;
  };
  const lastResort = { actions: [{ say: "Sorry" }, { hangup: true }] };
  const plain = await newNumber("/ok", {});
  const phases = [
    // Not reported: the server's first seconds (JIT, pools, prepared statements) would land on whichever phase ran first.
    { name: "warm-up", number: plain, expect: "<Say>hi</Say>", failing: false },
    { name: "plain", number: plain, expect: "<Say>hi</Say>", failing: false },
    {
      name: "policy",
      number: await newNumber("/ok", {
        answerTimeoutMs: 3000,
        fallback: { actions: [{ say: "Please hold" }, { dial: "+14155550199" }] },
        lastResort,
      }),
      expect: "<Say>hi</Say>",
      failing: false,
    },
    {
      name: "actions",
      number: await newNumber("/fail", {
        fallback: { actions: [{ say: "Please hold" }, { dial: "+14155550199" }] },
        lastResort,
      }),
      expect: "<Say>Please hold</Say>",
      failing: true,
    },
    {
      name: "twiml",
      number: await newNumber("/fail", {
        fallback: { twiml: "<Response><Say>Stored TwiML</Say></Response>" },
        lastResort,
      }),
      expect: "<Say>Stored TwiML</Say>",
      failing: true,
    },
  ];

  const loadBefore = round(loadavg()[0]!);
  const total = Math.round(rate * (seconds + warmupSeconds));
  const warm = Math.round(rate * warmupSeconds);
  const results: Record<string, unknown> = {};
  for (const phase of phases) {
    const pending: Promise<Sample>[] = [];
    const [t0, cpu0] = [performance.now(), cpuMs(server.child.pid!)];
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / rate;
      if (due > performance.now()) await sleep(due - performance.now());
      const params = {
        CallSid: newCallSid(),
        AccountSid: SIMULATOR_ACCOUNT_SID,
        From: `+1415555${String(randomInt(0, 10000)).padStart(4, "0")}`,
        To: phase.number,
        Direction: "inbound",
        CallStatus: "ringing",
        ApiVersion: "2010-04-01",
      };
      pending.push(post(engine, params, phase.expect).then((s) => ({ ...s, i })));
    }
    const samples = (await Promise.all(pending)).filter((s) => s.i >= warm);
    const cpu = cpuMs(server.child.pid!) - cpu0;
    const ok = samples.filter((s) => s.ok);
    if (phase.name === "warm-up") continue;
    results[phase.name] = {
      requests: samples.length,
      errors: samples.length - ok.length,
      voiceLatencyMs: stats(ok.map((s) => s.ms)),
      serverCpuMsPerRequest: round(cpu / total),
      ...(phase.failing && {
        failureToAnswerMs: stats(ok.map((s) => s.doneAt - (answeredAt.get(s.callSid) ?? Number.NaN))),
      }),
    };
    await sleep(1000); // the call log's writes settle between phases
  }
  console.log(
    JSON.stringify({ bench: "answer-fallback", ratePerSecond: rate, seconds, loadAverage1m: loadBefore, ...results }),
  );
  for (const [name, r] of Object.entries(results) as [string, any][]) {
    console.log(
      `${name}: voice p50 ${r.voiceLatencyMs.p50} ms, p99 ${r.voiceLatencyMs.p99} ms; server CPU ${r.serverCpuMsPerRequest} ms/request; ${r.errors} errors` +
        (r.failureToAnswerMs
          ? `; failure → answer p50 ${r.failureToAnswerMs.p50} ms, p99 ${r.failureToAnswerMs.p99} ms`
          : ""),
    );
  }
} finally {
  agent.destroy();
  backend.closeAllConnections();
  backend.close();
  await server.stop({ keepData: false });
}
process.exit(0);
