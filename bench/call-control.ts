// Routekit's own time per live-call command (docs/decisions.md §13), over Twilio's (the simulator's) answer time.
//   npx tsx bench/call-control.ts [commandsPerSecond=20] [seconds=20] [liveCalls=40]
// Starts the BUILT server (run `npm run build` first) on a scratch PostgreSQL database (DATABASE_URL when
// set) with the Twilio simulator as its Twilio, in a process of its own (in this one, its work would
// delay this process's clock and count as Routekit's), connects a paid account, and holds `liveCalls`
// inbound calls up at the simulator. Two more calls get two unmeasured cycles first (warm-up: the
// server's first commands load and compile code once per process). Then, open loop at a fixed rate,
// each command goes to the next call in turn, cycling through redirect, recording start, pause, resume
// and stop. Routekit's own time for a command is the client's round trip minus Twilio's round trip as
// Routekit measured it around the SDK call (the command's `latencyMs` in the call's timeline).
// Target: p99 < 50 ms. Also shown, to tell the code's time from the machine's: the part of it before
// Twilio is asked as the server measured it (`ownMs`), and a floor, GET /api/ready (the custom server
// and one `SELECT 1`, no Next.js) timed 5 times a second during the run.
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import { newCallSid } from "../src/twilio-simulator/twilio-simulator";
import { startBuiltServer } from "../scripts/built-server";
import { newPaidAccount, scratchDatabase } from "./support/api-bench";
import { processCpuMs } from "./support/process-cpu";
import { startTwilioSimulatorProcess } from "./support/twilio-simulator-process";

const rate = Number(process.argv[2] ?? 20);
const seconds = Number(process.argv[3] ?? 20);
const liveCount = Number(process.argv[4] ?? 40);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};
const round = (v: number) => Math.round(v * 100) / 100;

const backend = http.createServer((req, res) => {
  req.resume().on("end", () => {
    if (req.url === "/start")
      res.writeHead(200, { "content-type": "text/xml" }).end("<Response><Say>hi</Say></Response>");
    else res.writeHead(200).end();
  });
});
await new Promise<void>((r) => backend.listen(0, "127.0.0.1", () => r()));
const backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;

const twilio = await startTwilioSimulatorProcess();
const database = await scratchDatabase("routekit_bench_control");
const server = await startBuiltServer({
  name: "bench-control",
  env: {
    DATABASE_URL: database.url,
    LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
    CALLBACK_ALLOW_PRIVATE: "true",
    TWILIO_API_BASE_URL: twilio.url,
  },
  // SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server, as in engine-overhead.ts.
  nodeArgs: (process.env.SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean),
});
const ip = `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;

async function api(method: string, path: string, key: string, body?: unknown) {
  const started = performance.now();
  const res = await fetch(server.baseUrl + path, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      "x-forwarded-for": ip,
      ...(body !== undefined && { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  return { status: res.status, json, ms: performance.now() - started, requestId: res.headers.get("x-request-id") };
}

try {
  const account = await newPaidAccount(server.baseUrl, "control");
  const tw = await twilio.addAccount("Bench");
  const number = `+1415555${String(randomInt(0, 10_000)).padStart(4, "0")}`;
  await twilio.addIncomingNumber(tw.sid, number);
  if (
    (await api("PUT", "/api/twilio-connection", account.apiKey, { accountSid: tw.sid, authToken: tw.authToken }))
      .status !== 200
  )
    throw new Error("could not connect Twilio");
  const created = await api("POST", "/api/phone-numbers", account.apiKey, {
    phoneNumber: number,
    onCallStartUrl: `${backendUrl}/start`,
    onCallEndUrl: `${backendUrl}/end`,
  });
  if (created.status !== 201) throw new Error(`number: ${JSON.stringify(created.json)}`);

  const holdMs = (seconds + 30) * 1000;
  const sids = Array.from({ length: liveCount }, () => newCallSid());
  const warmSids = [newCallSid(), newCallSid()];
  for (const callSid of [...sids, ...warmSids])
    await twilio.inboundCall({ to: number, from: "+14155550100", callSid, holdMs, durationSeconds: 1 });
  for (const sid of [...sids, ...warmSids]) {
    for (;;) {
      const r = await api("GET", `/api/calls/${sid}`, account.apiKey);
      if (r.status === 200 && r.json.call.answer !== null && (await twilio.isLive(sid))) break;
      await sleep(50);
    }
  }

  const CYCLE = [
    ["redirect", { actions: [{ say: "Still there?" }, { pause: 60 }] }],
    ["recording", { action: "start" }],
    ["recording", { action: "pause" }],
    ["recording", { action: "resume" }],
    ["recording", { action: "stop" }],
  ] as const;
  const warm: number[] = [];
  for (let round = 0; round < 2; round++)
    for (const [kind, body] of CYCLE)
      for (const sid of warmSids) {
        const r = await api("POST", `/api/calls/${sid}/${kind}`, account.apiKey, body);
        if (r.status !== 200) throw new Error(`warm-up ${kind}: HTTP ${r.status} ${JSON.stringify(r.json)}`);
        warm.push(Math.round(r.ms));
      }
  console.log(`warm-up (unmeasured), client round trips in ms: ${warm.join(" ")}`);
  console.log(`${liveCount} live calls; ${rate} commands/s for ${seconds} s (open loop)`);
  const perCall = new Map<
    string,
    { kind: string; ms: number; status: number; requestId: string | null; error?: string }[]
  >();
  const next = new Map<string, number>();
  const pending: Promise<void>[] = [];
  const floor: number[] = [];
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const started = performance.now();
      await (await fetch(`${server.baseUrl}/api/ready`)).text();
      floor.push(performance.now() - started);
      await sleep(200);
    }
  })();
  const total = rate * seconds;
  const cpu0 = processCpuMs(server.child.pid!);
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const sid = sids[i % sids.length]!;
    const step = next.get(sid) ?? 0;
    next.set(sid, step + 1);
    const [kind, body] = CYCLE[step % CYCLE.length]!;
    pending.push(
      api("POST", `/api/calls/${sid}/${kind}`, account.apiKey, body).then((r) => {
        const list = perCall.get(sid) ?? [];
        list.push({
          kind: `${kind}${"action" in body ? `.${body.action}` : ""}`,
          ms: r.ms,
          status: r.status,
          requestId: r.requestId,
          ...(r.status !== 200 && { error: JSON.stringify(r.json?.error ?? null) }),
        });
        perCall.set(sid, list);
      }),
    );
  }
  await Promise.all(pending);
  probing = false;
  await probe;
  // The server's CPU per command (the floor's few probes included): unlike the wall-clock tail, a machine
  // busy with other work hardly changes it.
  const cpuPerCommand = (processCpuMs(server.child.pid!) - cpu0) / total;

  // The server's own account of each request: its request line's `ms`, from the request's arrival to the
  // answer's last byte handed to the kernel. Minus Twilio's round trip, that is Routekit's own time without
  // this process's share (its HTTP client and its event loop, busy with 20 commands a second and the probe).
  const serverMs = new Map<string, number>();
  for (const line of readFileSync(server.log, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { msg?: string; requestId?: string; ms?: number };
    if (entry.msg === "request" && entry.requestId && typeof entry.ms === "number")
      serverMs.set(entry.requestId, entry.ms);
  }
  const serverSide: number[] = [];
  // Twilio's round trip per command, as Routekit measured it, from each call's timeline (oldest first).
  const own: Record<string, number[]> = {};
  const all: number[] = [];
  const beforeTwilio: number[] = [];
  let failures = 0;
  for (const sid of sids) {
    const sent = perCall.get(sid) ?? [];
    const timeline = (await api("GET", `/api/calls/${sid}`, account.apiKey)).json.call.timeline as any[];
    const commands = timeline.filter((e) => e.type === "command");
    sent.forEach((s, k) => {
      const c = commands[k];
      if (s.status !== 200 || !c || c.outcome !== "ok") {
        failures++;
        console.log(`failed: ${s.kind} on ${sid}: HTTP ${s.status} ${s.error ?? ""}`);
        return;
      }
      const ms = s.ms - c.latencyMs;
      (own[s.kind] ??= []).push(ms);
      all.push(ms);
      beforeTwilio.push(c.ownMs);
      const served = s.requestId ? serverMs.get(s.requestId) : undefined;
      if (served !== undefined) serverSide.push(served - c.latencyMs);
    });
  }
  const rows = Object.entries({
    all,
    ...own,
    "(all: server-side, request line − Twilio)": serverSide,
    "(all: before Twilio, server-side)": beforeTwilio,
    "(floor: GET /api/ready)": floor,
  }).map(([kind, xs]) => ({
    command: kind,
    n: xs.length,
    p50: round(pct(xs, 50)),
    p95: round(pct(xs, 95)),
    p99: round(pct(xs, 99)),
    max: round(Math.max(...xs)),
  }));
  console.table(rows);
  console.log(`failed commands: ${failures}`);
  console.log(`server CPU per command: ${round(cpuPerCommand)} ms (load average ${os.loadavg()[0]!.toFixed(2)})`);
  const p99 = pct(all, 99);
  console.log(`Routekit's own time per command, p99 ${round(p99)} ms: ${p99 < 50 ? "PASS" : "FAIL"} (target < 50 ms)`);
  const serverP99 = pct(serverSide, 99);
  console.log(
    `the same as the server saw it (${serverSide.length} of ${all.length} matched), p99 ${round(serverP99)} ms: ${serverP99 < 50 ? "PASS" : "FAIL"}`,
  );
  for (const sid of [...sids, ...warmSids]) await api("POST", `/api/calls/${sid}/hangup`, account.apiKey);
  process.exitCode = p99 < 50 && failures === 0 ? 0 : 1;
} finally {
  await server.stop({ keepData: false });
  await twilio.close();
  backend.close();
  await database.drop();
}
