// The product beside the bare reference (bench/reference/), taking turns on one PostgreSQL server.
//   npx tsx bench/side-by-side.ts [--rounds 5] [--seconds 5] [--only voice-max,voice-p99,account]
//   npx tsx bench/side-by-side.ts --ci          # the CI guard: voice throughput ratio vs bench/engine-ratio-baseline.json
// Starts the BUILT server (`npm run build` first) and bench/reference/ref-server.mjs, each on its
// own fresh database on the server of DATABASE_URL (default postgresql://postgres@127.0.0.1:5432),
// both sending call.started to one bench/reference/customer-backend.mjs. The measures:
//   voice-max   POST /api/engine/voice/<token>, 10 connections, each sending as soon as answered: req/s
//   voice-p99   the same at 100 requests/s, evenly spaced, over 1 connection: p99 latency
//   account     GET /api/account, 10 connections, closed loop: req/s
// Every voice request is a new call (its own CallSid); an answer without the customer's TwiML counts
// as a failure. Within a round each measure runs on the reference and on the product back to back
// (which goes first alternates by round), so a shared machine whose speed drifts weighs on both sides
// of each ratio alike; the per-round ratios and their median are printed. Round 0 warms up and is not
// counted. Besides req/s, each side's own CPU per request (its process, and its PostgreSQL backends)
// is printed: a proportion that depends far less on what else the machine is doing.
// The load generator is node:http in this process (bench/support/load-loop.ts), the same for both
// sides; unlike autocannon's rate mode, which sends each second's share in a burst, voice-p99 spaces
// its requests evenly, as calls arrive one by one.
// --product-sql <file>: SQL run on the product's database once it is set up, before the rounds: an A/B of a
// schema change on one build (say, a dropped index put back), run alternately with and without it.
// --ci: 5 rounds of 3 s, voice-max only; exits 1 when the median ratio is more than 25 % below the
// baseline's `voiceThroughputRatio` (bench/engine-ratio-baseline.json).
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import pg from "pg";
import { startBuiltServer, type BuiltServer } from "../scripts/built-server";
import { latencyStats, newPaidAccount } from "./support/api-bench";
import { closedLoad, pacedLoad, type LoadRequest, type LoadResult } from "./support/load-loop";
import { cpuSince, databaseCpu, processCpuMs } from "./support/process-cpu";
import { scripts, startCustomerBackend, startReference } from "./support/reference";
import { VOICE_REQUEST_HEADERS, voiceRequestBody } from "./support/voice-request";

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(`--${name}`);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const ci = flag("ci");
const rounds = Number(option("rounds", "5"));
const seconds = Number(option("seconds", ci ? "3" : "5"));
const MEASURES = ["voice-max", "voice-p99", "account"] as const;
type Measure = (typeof MEASURES)[number];
const only = option("only", ci ? "voice-max" : MEASURES.join(",")).split(",") as Measure[];
const BASELINE_FILE = "bench/engine-ratio-baseline.json";
/** The CI guard's tolerance: a ratio this far below the baseline fails. */
const ALLOWED_DROP = 0.25;
const CONNECTIONS = 10;
const RATE = 100;
const ACCOUNTS = 30; // the API allows 50 requests/s per account: spread over 30, a 429 stays out of the way

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fixed = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "–");

// ---- databases: one server, one fresh database per side
const serverUrl = new URL(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
const dbUrl = (name: string) => Object.assign(new URL(serverUrl.href), { pathname: `/${name}` }).href;
const adminUrl = dbUrl("postgres");
const suffix = `${process.pid}`;
const names = { ref: `sbs_ref_${suffix}`, product: `sbs_product_${suffix}` };
async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
await admin(async (c) => {
  for (const n of Object.values(names)) await c.query(`CREATE DATABASE "${n}"`);
});
const dropDatabases = () =>
  admin(async (c) => {
    for (const n of Object.values(names)) await c.query(`DROP DATABASE IF EXISTS "${n}" WITH (FORCE)`);
  });

type Side = {
  name: "reference" | "product";
  baseUrl: string;
  pid: number;
  database: string;
  voicePath: string;
  to: string;
  apiKeys: string[];
};

let product: BuiltServer | undefined;
let passed = false;
try {
  const backend = await startCustomerBackend();
  const onCallStartUrl = `${backend.url}/call-start`;
  const ref = await startReference(dbUrl(names.ref), onCallStartUrl);

  product = await startBuiltServer({
    name: "bench-side-by-side",
    // Production's log level: the request log line is part of the cost.
    env: {
      DATABASE_URL: dbUrl(names.product),
      CALLBACK_ALLOW_PRIVATE: "true",
      LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
    },
    nodeArgs: (process.env.SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean),
  });
  const ip = `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  const reg = (await (
    await fetch(`${product.baseUrl}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": ip },
      body: JSON.stringify({ email: `sbs-${Date.now()}@example.com`, password: "benchmark-password" }),
    })
  ).json()) as { apiKey: string; checkoutUrl: string; engineVoiceUrl: string };
  await (await fetch(reg.checkoutUrl, { method: "POST", redirect: "manual" })).text();
  const productNumber = "+14155550123";
  const added = await fetch(`${product.baseUrl}/api/phone-numbers`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${reg.apiKey}`, "x-forwarded-for": ip },
    body: JSON.stringify({ phoneNumber: productNumber, onCallStartUrl, onCallEndUrl: `${backend.url}/call-end` }),
  });
  if (added.status !== 201) throw new Error(`adding the number: ${added.status} ${await added.text()}`);
  const productSql = option("product-sql", "");
  if (productSql) {
    const db = new pg.Client({ connectionString: dbUrl(names.product) });
    await db.connect();
    try {
      await db.query(readFileSync(productSql, "utf8"));
    } finally {
      await db.end();
    }
    console.log(`ran ${productSql} on the product's database`);
  }
  const productKeys = [reg.apiKey];
  if (only.includes("account")) {
    for (let i = 1; i < ACCOUNTS; i += 5) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(5, ACCOUNTS - i) }, (_, j) => newPaidAccount(product!.baseUrl, `sbs-${i + j}`)),
      );
      productKeys.push(...batch.map((a) => a.apiKey));
    }
  }

  const sides: Side[] = [
    {
      name: "reference",
      baseUrl: ref.url,
      pid: ref.child.pid!,
      database: names.ref,
      voicePath: ref.voicePath,
      to: ref.to,
      apiKeys: [ref.apiKey],
    },
    {
      name: "product",
      baseUrl: product.baseUrl,
      pid: product.child.pid!,
      database: names.product,
      voicePath: new URL(reg.engineVoiceUrl).pathname,
      to: productNumber,
      apiKeys: productKeys,
    },
  ];

  const voiceRequest = (side: Side) => (): LoadRequest => ({
    method: "POST",
    path: side.voicePath,
    headers: { ...VOICE_REQUEST_HEADERS },
    body: voiceRequestBody(side.to),
  });
  const accountRequest =
    (side: Side) =>
    (i: number): LoadRequest => ({
      method: "GET",
      path: "/api/account",
      headers: { authorization: `Bearer ${side.apiKeys[i % side.apiKeys.length]}` },
    });
  const run = (measure: Measure, side: Side): Promise<LoadResult> => {
    const common = { url: side.baseUrl, seconds };
    if (measure === "voice-max")
      return closedLoad({ ...common, connections: CONNECTIONS, request: voiceRequest(side), expect: "<Say>hi</Say>" });
    if (measure === "voice-p99")
      return pacedLoad({ ...common, rate: RATE, request: voiceRequest(side), expect: "<Say>hi</Say>" });
    return closedLoad({ ...common, connections: CONNECTIONS, request: accountRequest(side) });
  };

  type Sample = {
    rps: number;
    p99: number;
    p50: number;
    cpuMs: number;
    dbCpuMs: number;
    failures: number;
    /** What the failures were: socket errors, answers by status, 2xx answers without the customer's TwiML. */
    failureKinds: string[];
    ms: number[];
  };
  const samples = new Map<string, Sample[]>(); // `${measure}/${side}` → one per counted round
  const loads: number[] = [];
  const monitor = new pg.Client({ connectionString: adminUrl });
  await monitor.connect();
  try {
    // What each side burns doing nothing (the product's job-queue polling, timers), taken off its per-request figures.
    const idleSeconds = 3;
    const idle0 = await Promise.all(
      sides.map(async (s) => [processCpuMs(s.pid), await databaseCpu(monitor, s.database)] as const),
    );
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const idleRate = await Promise.all(
      sides.map(
        async (s, i) =>
          [
            (processCpuMs(s.pid) - idle0[i]![0]) / idleSeconds,
            cpuSince(idle0[i]![1], await databaseCpu(monitor, s.database)) / idleSeconds,
          ] as const,
      ),
    );
    for (let round = 0; round <= rounds; round++) {
      loads.push(loadavg()[0]!);
      for (const measure of only) {
        const order = round % 2 ? [...sides].reverse() : sides;
        for (const side of order) {
          const [cpu0, db0, t0] = [
            processCpuMs(side.pid),
            await databaseCpu(monitor, side.database),
            performance.now(),
          ];
          const r = await run(measure, side);
          const [cpu1, db1, t1] = [
            processCpuMs(side.pid),
            await databaseCpu(monitor, side.database),
            performance.now(),
          ];
          if (round === 0) continue;
          const [idleCpu, idleDb] = idleRate[sides.indexOf(side)]!.map((perSecond) => (perSecond * (t1 - t0)) / 1000);
          const s = latencyStats(r.ms);
          const key = `${measure}/${side.name}`;
          samples.set(key, [
            ...(samples.get(key) ?? []),
            {
              rps: r.rps,
              p99: s.p99,
              p50: s.p50,
              cpuMs: (cpu1 - cpu0 - idleCpu!) / r.requests,
              dbCpuMs: Math.max(0, cpuSince(db0, db1) - idleDb!) / r.requests,
              failures: r.requests - r.ms.length,
              failureKinds: [
                ...(r.errors ? [`${r.errors} socket errors`] : []),
                ...Object.entries(r.statuses)
                  .filter(([status]) => Number(status) && (Number(status) < 200 || Number(status) >= 300))
                  .map(([status, n]) => `${n} × HTTP ${status}`),
                ...(r.unexpected ? [`${r.unexpected} without the customer's TwiML`] : []),
              ],
              ms: r.ms,
            },
          ]);
        }
      }
      if (round > 0) process.stderr.write(`round ${round}/${rounds} done (load ${loadavg()[0]!.toFixed(2)})\n`);
    }
  } finally {
    await monitor.end();
  }

  const at = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  console.log(
    `\nside by side, ${at}; ${rounds} rounds of ${seconds} s per measure and side (after a warm-up round); Node ${process.version}`,
  );
  console.log(
    `load average (1 min) at each round: ${loads.map((l) => l.toFixed(2)).join(", ")}; at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(
    "\n| measure | side | req/s | p50 ms | p99 ms | CPU ms/req (process) | CPU ms/req (PostgreSQL) | failures |\n|---|---|---|---|---|---|---|---|",
  );
  const ratios: Record<string, number[]> = {};
  for (const measure of only) {
    for (const side of sides) {
      const list = samples.get(`${measure}/${side.name}`)!;
      const s = latencyStats(list.flatMap((x) => x.ms));
      const rps = list.reduce((a, x) => a + x.rps, 0) / list.length;
      console.log(
        `| ${measure} | ${side.name} | ${Math.round(rps)} | ${s.p50} | ${s.p99} | ${fixed(median(list.map((x) => x.cpuMs)))} | ${fixed(median(list.map((x) => x.dbCpuMs)))} | ${list.reduce((a, x) => a + x.failures, 0)} |`,
      );
    }
    const [r, p] = [samples.get(`${measure}/reference`)!, samples.get(`${measure}/product`)!];
    // Throughput for the closed loops; p99 for the paced one (product ÷ reference: lower is better there).
    ratios[measure] = r.map((x, i) => (measure === "voice-p99" ? p[i]!.p99 / x.p99 : p[i]!.rps / x.rps));
    ratios[`${measure} CPU`] = r.map((x, i) => (x.cpuMs + x.dbCpuMs) / (p[i]!.cpuMs + p[i]!.dbCpuMs));
  }
  console.log("\n| ratio (product ÷ reference) | per round | median |\n|---|---|---|");
  for (const [name, list] of Object.entries(ratios)) {
    const label = name.endsWith(" CPU")
      ? `${name.replace(" CPU", "")}: reference CPU ÷ product CPU per request`
      : name === "voice-p99"
        ? "voice-p99: p99 (lower is better)"
        : `${name}: req/s`;
    console.log(`| ${label} | ${list.map((x) => fixed(x)).join(", ")} | **${fixed(median(list))}** |`);
  }
  const failures = [...samples.values()].flat().reduce((a, x) => a + x.failures, 0);
  passed = failures === 0;
  if (!passed) {
    console.log(`FAIL: ${failures} answers were errors or not the customer's TwiML`);
    for (const [key, list] of samples)
      for (const [i, x] of list.entries())
        if (x.failureKinds.length) console.log(`  ${key}, round ${i + 1}: ${x.failureKinds.join(", ")}`);
  }

  if (ci) {
    const baseline = JSON.parse(readFileSync(BASELINE_FILE, "utf8")) as { voiceThroughputRatio: number };
    const floor = baseline.voiceThroughputRatio * (1 - ALLOWED_DROP);
    const got = median(ratios["voice-max"]!);
    const ok = got >= floor;
    console.log(
      `\nCI guard: voice req/s ratio ${fixed(got)} against baseline ${fixed(baseline.voiceThroughputRatio)} (floor ${fixed(floor)}): ${ok ? "ok" : "FAIL"}`,
    );
    passed &&= ok;
  }
} finally {
  for (const c of scripts) c.kill("SIGTERM");
  // A failed run keeps the product's log (and its data directory) for a look at what went wrong.
  await product?.stop({ keepData: !passed });
  if (!passed && product) console.log(`the product's log is kept in ${product.log}`);
  await dropDatabases().catch((err: unknown) => console.error("could not drop the bench databases:", err));
}
process.exit(passed ? 0 : 1);
