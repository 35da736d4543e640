// What metrics and tracing cost the engine (docs/performance.md, "Observability overhead").
//   npx tsx bench/observability-overhead.ts [rounds=3] [callsPerSecond=100] [seconds=8] [warmupSeconds=2]
// Runs bench/engine-overhead.ts against three builds of the server, alternating them round by round
// (A B C, A B C, …) so a neighbour's burst on this shared machine hits every variant alike:
//   metrics-off  dist/bench-server-no-metrics.mjs: the server bundle built here with
//                src/server/metrics/metrics.ts replaced by plain no-op objects (noMetricsSource below);
//                no registry, no default process metrics — the build "without them"
//   metrics-on   dist/server.mjs as shipped, tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset)
//   tracing-on   dist/server.mjs with OTEL_EXPORTER_OTLP_ENDPOINT set to a local OTLP/HTTP receiver
//                run here (it decodes nothing, counts the bytes and the spans' export requests)
//   tracing-10%  the same with OTEL_TRACES_SAMPLER_ARG=0.1 (one new trace in ten recorded)
// Reports, per variant, the medians over the rounds of: the voice request's p99 (and our overhead's,
// the backend's own handling time taken out), the server's CPU per request (the robust figure on a
// noisy host), and the 1-minute load average before each run. Run `npm run build` first; DATABASE_URL
// (a scratch database) is passed on, else each run uses the embedded database.
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { build } from "esbuild";

const rounds = Number(process.argv[2] ?? 3);
const rate = process.argv[3] ?? "100";
const seconds = process.argv[4] ?? "8";
const warmup = process.argv[5] ?? "2";
const round = (v: number, places = 2) => Math.round(v * 10 ** places) / 10 ** places;
const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? round(s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN;
};

/**
 * What src/server/metrics/metrics.ts becomes in the "metrics off" bundle: the same metric names (read from
 * the real file), each a plain object whose methods do nothing, and no registry, so no default process
 * metrics (event-loop monitor, GC observer) run either. Plain objects, not a Proxy: a Proxy's trap on every
 * `metrics().x` costs more than prom-client's counter and would flatter "metrics on". Remembered under the
 * same name, so the Next.js bundles' own `metrics()` finds this one and creates no registry of their own.
 */
function noMetricsSource(): string {
  const names = [
    ...readFileSync("src/server/metrics/metrics.ts", "utf8").matchAll(
      /^ {4}(\w+): new (?:Counter|Gauge|Histogram)\b/gm,
    ),
  ].map((m) => m[1]!);
  if (names.length < 10) throw new Error(`metrics.ts: found only ${names.length} metrics; has its layout changed?`);
  return `import { remember } from "../runtime/remember";
const metric = { inc() {}, dec() {}, set() {}, observe() {}, reset() {}, labels() { return metric; }, startTimer() { return () => 0; } };
const noop = {
  registry: { metrics: async () => "", contentType: "text/plain; version=0.0.4; charset=utf-8" },
  ${names.map((n) => `${n}: metric,`).join("\n  ")}
};
export type Metrics = any;
export function metrics(): Metrics {
  return remember("metrics", () => noop);
}
`;
}

// ---- the "metrics off" bundle: scripts/build-server.mjs's options, metrics.ts swapped for no-ops
const NO_METRICS = "dist/bench-server-no-metrics.mjs";
await build({
  entryPoints: ["src/server/main.ts"],
  outfile: NO_METRICS,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
  plugins: [
    {
      name: "no-metrics",
      setup(b) {
        b.onLoad({ filter: /src\/server\/metrics\/metrics\.ts$/ }, () => ({
          contents: noMetricsSource(),
          loader: "ts",
        }));
      },
    },
  ],
});

// ---- a local OTLP/HTTP receiver for the tracing-on runs
let exportRequests = 0;
let exportBytes = 0;
const receiver = http.createServer((req, res) => {
  exportRequests++;
  req.on("data", (c: Buffer) => (exportBytes += c.length));
  req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const otlpEndpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

type Variant = { name: string; env: Record<string, string> };
const variants: Variant[] = [
  { name: "metrics-off", env: { BENCH_SERVER_ENTRY: NO_METRICS, OTEL_EXPORTER_OTLP_ENDPOINT: "" } },
  { name: "metrics-on", env: { BENCH_SERVER_ENTRY: "", OTEL_EXPORTER_OTLP_ENDPOINT: "" } },
  { name: "tracing-on", env: { BENCH_SERVER_ENTRY: "", OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint } },
  // One trace in ten recorded (OTEL_TRACES_SAMPLER_ARG): what an operator at this rate would run.
  {
    name: "tracing-10%",
    env: { BENCH_SERVER_ENTRY: "", OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint, OTEL_TRACES_SAMPLER_ARG: "0.1" },
  },
];

type Run = {
  load: number;
  voiceP99: number;
  overheadP99: number;
  voiceCpu: number;
  steadyVoiceP99: number;
  steadyCpu: number;
  completedCpu: number;
  errors: number;
};
function runOnce(v: Variant): Promise<Run> {
  const load = round(loadavg()[0]!);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "bench/engine-overhead.ts", rate, seconds, warmup], {
      env: { ...process.env, ...v.env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.on("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith('{"bench":"engine-overhead"'));
      if (code !== 0 || !line)
        return reject(new Error(`${v.name}: engine-overhead exited ${code}\n${out.slice(-2000)}`));
      const r = JSON.parse(line);
      resolve({
        load,
        voiceP99: r.voice.latencyMs.p99,
        overheadP99: r.voice.overheadMs.p99,
        voiceCpu: r.voice.serverCpuMsPerRequest,
        steadyVoiceP99: r.steadyState.voice.latencyMs.p99,
        steadyCpu: r.steadyState.voice.serverCpuMsPerRequest,
        completedCpu: r.completed.serverCpuMsPerRequest,
        errors: r.voice.errors + r.completed.errors + r.steadyState.voice.errors + r.steadyState.completed.errors,
      });
    });
  });
}

const runs = new Map<string, Run[]>(variants.map((v) => [v.name, []]));
try {
  for (let i = 1; i <= rounds; i++)
    for (const v of variants) {
      const r = await runOnce(v);
      runs.get(v.name)!.push(r);
      console.error(`round ${i} ${v.name}: ${JSON.stringify(r)}`);
    }
} finally {
  receiver.close();
}

const summary = Object.fromEntries(
  [...runs].map(([name, rs]) => [
    name,
    Object.fromEntries((Object.keys(rs[0]!) as (keyof Run)[]).map((k) => [k, median(rs.map((r) => r[k]))])) as Record<
      keyof Run,
      number
    >,
  ]),
);
const base = summary["metrics-off"]!;
const vs = (name: string, k: keyof Run) => `${round((100 * (summary[name]![k] - base[k])) / base[k], 1)} %`;
console.log(
  JSON.stringify({
    bench: "observability-overhead",
    database: process.env.DATABASE_URL ? "PostgreSQL" : "embedded (PGlite)",
    rounds,
    ratePerSecond: Number(rate),
    seconds: Number(seconds),
    medians: summary,
    tracingExport: { requests: exportRequests, bytes: exportBytes },
  }),
);
for (const name of ["metrics-on", "tracing-on", "tracing-10%"])
  console.log(
    `${name} vs metrics-off (medians of ${rounds}): voice p99 ${summary[name]!.voiceP99} vs ${base.voiceP99} ms (${vs(name, "voiceP99")}), ` +
      `overhead p99 ${summary[name]!.overheadP99} vs ${base.overheadP99} ms (${vs(name, "overheadP99")}), ` +
      `CPU/voice request ${summary[name]!.voiceCpu} vs ${base.voiceCpu} ms (${vs(name, "voiceCpu")}), ` +
      `steady-state CPU/request ${summary[name]!.steadyCpu} vs ${base.steadyCpu} ms (${vs(name, "steadyCpu")}); ` +
      `load average ${summary[name]!.load} vs ${base.load}`,
  );
process.exit(0);
