// What `routekit listen` adds to call.started (docs/decisions.md §19: under 150 ms at p99).
//   npx tsx bench/listen-relay.ts [callsPerSecond=20] [seconds=15] [warmupSeconds=3]
// Starts two BUILT servers (run `npm run build` first) on DATABASE_URL (a scratch database; the second
// instance shares it), a local backend that answers call.started with TwiML at once, and the real CLI
// (`node --import tsx sdk/src/cli.ts listen`, forwarding to that backend). Voice requests of new inbound
// calls go open-loop, at the rate given, always to instance A. Phases:
//   direct only   a number without listen: the engine POSTs call.started to the backend's URL;
//   relay-same    a listen number, the listener connected to A (the instance Twilio reached), interleaved
//                 with the same rate of direct calls, so both see the same machine;
//   relay-other   the same with the listener connected to B: event and answer cross through PostgreSQL.
// Each sample is the voice request's whole time at Twilio's side; the relay's added latency is the relay
// number's percentile minus the direct number's in the same phase. Without DATABASE_URL (the embedded
// database, one instance) relay-other is skipped.
import { type ChildProcess, spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { startBuiltServer, type BuiltServer } from "../scripts/built-server";
import { VOICE_REQUEST_HEADERS, voiceRequestBody } from "./support/voice-request";

const rate = Number(process.argv[2] ?? 20);
const seconds = Number(process.argv[3] ?? 15);
const warmupSeconds = Number(process.argv[4] ?? 3);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (v: number) => Math.round(v * 10) / 10;

const backend = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    if (req.url === "/start")
      res.writeHead(200, { "content-type": "text/xml" }).end("<Response><Say>hi</Say></Response>");
    else res.writeHead(200).end("ok");
  });
});
await new Promise<void>((r) => backend.listen(0, "127.0.0.1", r));
const backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;

const env = { CALLBACK_ALLOW_PRIVATE: "true", LOG_LEVEL: process.env.LOG_LEVEL ?? "warn" };
const a = await startBuiltServer({ name: "bench-listen-a", env });
const b: BuiltServer | null = a.embedded
  ? null
  : await startBuiltServer({ name: "bench-listen-b", env: { ...env, DATABASE_URL: a.databaseUrl } });

async function api(method: string, p: string, body: unknown, key?: string) {
  const res = await fetch(a.baseUrl + p, {
    method,
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`,
      ...(key && { authorization: `Bearer ${key}` }),
    },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
}

function startListener(baseUrl: string, apiKey: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "sdk/src/cli.ts", "listen", "--forward-to", `${backendUrl}/start`],
    {
      env: { ...process.env, ROUTEKIT_API_KEY: apiKey, ROUTEKIT_BASE_URL: baseUrl },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (d: string) => d.includes("Ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`routekit listen exited ${code}`)));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
function voice(engine: URL, to: string): Promise<{ ms: number; ok: boolean }> {
  const body = voiceRequestBody(to);
  return new Promise((resolve) => {
    const started = performance.now();
    const req = http.request(
      {
        host: engine.hostname,
        port: engine.port,
        path: engine.pathname,
        method: "POST",
        agent,
        headers: { ...VOICE_REQUEST_HEADERS, "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => (text += c));
        res.on("end", () =>
          resolve({ ms: performance.now() - started, ok: res.statusCode === 200 && text.includes("<Say>hi</Say>") }),
        );
      },
    );
    req.on("error", () => resolve({ ms: performance.now() - started, ok: false }));
    req.end(body);
  });
}

type Stats = { n: number; failed: number; p50: number; p90: number; p99: number; max: number };
function stats(samples: { ms: number; ok: boolean }[]): Stats {
  const ms = samples.map((x) => x.ms).sort((x, y) => x - y);
  const at = (p: number) => round(ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!);
  return {
    n: ms.length,
    failed: samples.filter((x) => !x.ok).length,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: at(1),
  };
}

/** `rate` calls a second to each number, interleaved (half a period apart), so both see the same machine. */
async function phase(engine: URL, numbers: string[], secs: number): Promise<Stats[]> {
  const pending: Promise<{ ms: number; ok: boolean }>[][] = numbers.map(() => []);
  const every = 1000 / rate / numbers.length;
  const t0 = performance.now();
  for (let i = 0; i < rate * secs * numbers.length; i++) {
    const wait = t0 + i * every - performance.now();
    if (wait > 0) await sleep(wait);
    pending[i % numbers.length]!.push(voice(engine, numbers[i % numbers.length]!));
  }
  return Promise.all(pending.map(async (p) => stats(await Promise.all(p))));
}

const listeners: ChildProcess[] = [];
try {
  const reg = await api("POST", "/api/auth/register", {
    email: `bench-listen-${Date.now()}@example.com`,
    password: "benchmark-password",
  });
  await (await fetch(reg.checkoutUrl as string, { method: "POST", redirect: "manual" })).text();
  const engine = new URL(reg.engineVoiceUrl as string);
  const number = async (listen: boolean) => {
    const phoneNumber = `+1${randomInt(200, 1000)}${randomInt(200, 1000)}${String(randomInt(0, 10000)).padStart(4, "0")}`;
    await api(
      "POST",
      "/api/phone-numbers",
      { phoneNumber, onCallStartUrl: `${backendUrl}/start`, onCallEndUrl: `${backendUrl}/end`, listen },
      reg.apiKey as string,
    );
    return phoneNumber;
  };
  const direct = await number(false);
  const listened = await number(true);
  const rows: [string, Stats, Stats | null][] = [];

  await phase(engine, [direct], warmupSeconds);
  rows.push(["direct only", (await phase(engine, [direct], seconds))[0]!, null]);

  listeners.push(await startListener(a.baseUrl, reg.apiKey as string));
  await phase(engine, [direct, listened], warmupSeconds);
  const [d1, r1] = await phase(engine, [direct, listened], seconds);
  rows.push(["direct", d1!, null], ["relay-same", r1!, d1!]);
  listeners.pop()!.kill("SIGTERM");
  await sleep(1_500);

  if (b) {
    listeners.push(await startListener(b.baseUrl, reg.apiKey as string));
    await phase(engine, [direct, listened], warmupSeconds);
    const [d2, r2] = await phase(engine, [direct, listened], seconds);
    rows.push(["direct", d2!, null], ["relay-other", r2!, d2!]);
  }

  console.log(`rate ${rate}/s per number, ${seconds} s per phase, load average ${loadavg().map(round).join(" ")}`);
  console.log("phase         n     failed  p50     p90     p99     max     added p50  added p99   (ms)");
  for (const [name, r, base] of rows) {
    const added = base ? [round(r.p50 - base.p50), round(r.p99 - base.p99)] : ["", ""];
    console.log(
      [name.padEnd(12), String(r.n).padEnd(5), String(r.failed).padEnd(7), r.p50, r.p90, r.p99, r.max, ...added]
        .map((v) => String(v).padEnd(8))
        .join(""),
    );
  }
} finally {
  for (const l of listeners) l.kill("SIGTERM");
  await Promise.all([a.stop(), b?.stop()]);
  backend.close();
  agent.destroy();
}
