// Instructions a server executes per voice request: a figure that, unlike time or CPU seconds, hardly
// moves with what else the machine is doing, so two builds (or Routekit and the bare reference) can be
// told apart by a few per cent where the side-by-side run's rounds spread by ±10 %.
//   npx tsx bench/instructions-per-request.ts [measured] [warm-up] [--counter perf|callgrind]
//                                             [--side both|product|reference] [--concurrency N]
// Needs a built server (`npm run build`) and DATABASE_URL's PostgreSQL server (default
// postgresql://postgres@127.0.0.1:5432; a fresh database per side). Each side gets the same voice
// requests (new calls, N at a time) with bench/reference/customer-backend.mjs as the number's
// onCallStartUrl; `warm-up` of them first, so that V8 has compiled the hot path, then `measured` counted.
// Two counters:
// - perf (the default where the CPU's counters are readable: `perf stat -e instructions true` prints a
//   count, from Debian's linux-perf): `perf stat` on the server's process, all its threads, while the
//   measured requests run: instructions and cycles. Both sides (`--side both`, the default), 10 at a
//   time, 10,000 after 6,000 of warm-up: a run takes a minute. Instructions agree within 1-3 % run to run;
//   cycles move with the machine (caches, the other processes on its two cores). Read both, and PostgreSQL's
//   instructions beside them: a change that saves instructions may not save cycles, or may move the work into
//   the database (docs/performance.md has one that did both). Run two builds alternately, a few times each.
// - callgrind: the server under `valgrind --tool=callgrind --instr-atstart=no` (callgrind_control switches
//   the count on around the measured requests), Routekit only, 4 at a time, 1,000 after 4,000: three to
//   four minutes. For a machine whose counters perf cannot read. Switching the count on retranslates V8's
//   code, a pause of seconds, so the server gives call.started 14 s.
// Beside each figure: the process's CPU and its PostgreSQL backends' CPU per request (CPU time, which
// does move with the machine). Figures go in docs/performance.md with the commit they were measured on.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { siblingDatabase, startBuiltServer } from "../scripts/built-server";
import { newPaidAccount } from "./support/api-bench";
import { cpuSince, databaseCpu, processCpuMs } from "./support/process-cpu";
import { scripts, startCustomerBackend, startReference } from "./support/reference";
import { VOICE_REQUEST_HEADERS, voiceRequestBody } from "./support/voice-request";

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const positional = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));

/** Whether perf reads this CPU's instruction counter (a virtual machine may not pass it through). */
const perfReadsInstructions = () => {
  const run = spawnSync("perf", ["stat", "-x", ",", "-e", "instructions", "true"], { encoding: "utf8" });
  return !run.error && /^\d+,/m.test(run.stderr ?? "");
};
const perfReadable = perfReadsInstructions();
const counter = option("counter", perfReadable ? "perf" : "callgrind");
if (counter !== "perf" && counter !== "callgrind") throw new Error(`--counter is perf or callgrind, not ${counter}`);
if (counter === "perf" && !perfReadable)
  throw new Error(
    "perf cannot read the instruction counter here (`perf stat -e instructions true`): use --counter callgrind",
  );
const sides = option("side", counter === "perf" ? "both" : "product");
if (!["both", "product", "reference"].includes(sides)) throw new Error(`--side is both, product or reference`);
if (counter === "callgrind" && sides !== "product") throw new Error("callgrind counts Routekit only: --side product");
const measured = Number(positional[0] ?? (counter === "perf" ? 10_000 : 1000));
const warmUp = Number(positional[1] ?? (counter === "perf" ? 6000 : 4000));
const concurrency = Number(option("concurrency", counter === "perf" ? "10" : "4"));

const serverUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const stats = new pg.Client({ connectionString: serverUrl });
await stats.connect();
const databases: string[] = [];
const freshDatabase = async (label: string) => {
  const url = await siblingDatabase(serverUrl, `ipr_${label}_${process.pid}`);
  databases.push(new URL(url).pathname.slice(1));
  return url;
};

type Target = {
  name: "product" | "reference";
  baseUrl: string;
  pid: number;
  database: string;
  voicePath: string;
  to: string;
};
type Count = { instructions: number; cycles: number | null; databaseInstructions: number | null; seconds: number };
const stops: (() => Promise<void>)[] = [];
let productLog: string | undefined;
let failed = false;

const backend = await startCustomerBackend();
const onCallStartUrl = `${backend.url}/call-start`;
const outDir = mkdtempSync(path.join(tmpdir(), "routekit-callgrind-"));

async function productTarget(): Promise<Target> {
  const databaseUrl = await freshDatabase("product");
  const server = await startBuiltServer({
    name: "bench-instructions",
    env: {
      DATABASE_URL: databaseUrl,
      CALLBACK_ALLOW_PRIVATE: "true",
      // Production's level: the request line is part of the cost.
      LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
      ...(counter === "callgrind" ? { CALLBACK_START_TIMEOUT_MS: "14000" } : {}),
    },
    nodeArgs: (process.env.SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean),
    ...(counter === "callgrind"
      ? {
          wrapper: [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            // V8 writes and rewrites its own machine code.
            "--smc-check=all-non-file",
            `--callgrind-out-file=${outDir}/callgrind.out.%p`,
          ],
          readyTimeoutMs: 900_000,
        }
      : {}),
  });
  productLog = server.log;
  stops.push(() => server.stop({ keepData: failed }));
  const reg = await newPaidAccount(server.baseUrl, "instructions");
  const to = "+14155550123";
  const added = await fetch(`${server.baseUrl}/api/phone-numbers`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`,
      authorization: `Bearer ${reg.apiKey}`,
    },
    body: JSON.stringify({ phoneNumber: to, onCallStartUrl, onCallEndUrl: `${backend.url}/call-end` }),
  });
  if (added.status !== 201) throw new Error(`adding the number: ${added.status} ${await added.text()}`);
  return {
    name: "product",
    baseUrl: server.baseUrl,
    pid: server.child.pid!,
    database: new URL(databaseUrl).pathname.slice(1),
    voicePath: new URL(reg.engineVoiceUrl).pathname,
    to,
  };
}

async function referenceTarget(): Promise<Target> {
  const databaseUrl = await freshDatabase("reference");
  const ref = await startReference(databaseUrl, onCallStartUrl);
  return {
    name: "reference",
    baseUrl: ref.url,
    pid: ref.child.pid!,
    database: new URL(databaseUrl).pathname.slice(1),
    voicePath: ref.voicePath,
    to: ref.to,
  };
}

/** `n` voice requests of new calls, `concurrency` at a time; each must get the customer's TwiML. */
function voiceLoad(target: Target): (n: number) => Promise<void> {
  const url = new URL(target.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const voice = () =>
    new Promise<void>((resolve, reject) => {
      const body = voiceRequestBody(target.to);
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: target.voicePath,
          method: "POST",
          agent,
          headers: { ...VOICE_REQUEST_HEADERS, "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8").on("data", (c: string) => (text += c));
          res.on("end", () =>
            res.statusCode === 200 && text.includes("<Say>hi</Say>")
              ? resolve()
              : reject(new Error(`voice request answered ${res.statusCode}: ${text.slice(0, 200)}`)),
          );
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  return async (n: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < n) await voice();
      }),
    );
  };
}

/** perf stat on every thread of the given processes, from now until `stop`. */
function perfStat(pids: number[]): {
  attached: Promise<unknown>;
  stop(): Promise<{ instructions: number | null; cycles: number | null }>;
} {
  const perf = spawn("perf", ["stat", "-x", ",", "-e", "instructions,cycles", "-p", pids.join(",")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let out = "";
  perf.stderr.on("data", (c: Buffer) => (out += c));
  const exited = new Promise((r) => perf.on("exit", r));
  const event = (name: string) => {
    const value = out
      .split("\n")
      .find((l) => l.split(",")[2]?.startsWith(name))
      ?.split(",")[0];
    return value && /^\d+$/.test(value) ? Number(value) : null;
  };
  return {
    attached: new Promise((r) => setTimeout(r, 300)),
    async stop() {
      perf.kill("SIGINT");
      await exited;
      return { instructions: event("instructions"), cycles: event("cycles") };
    },
  };
}

/**
 * perf stat on every thread of the server's process while `work` runs, and on its database's backends (the pool's
 * connections, open since the warm-up): PostgreSQL's instructions for the same requests.
 */
async function countWithPerf(pid: number, work: () => Promise<unknown>, backends: number[]): Promise<Count> {
  const server = perfStat([pid]);
  const database = backends.length ? perfStat(backends) : null;
  await Promise.all([server.attached, database?.attached]);
  const started = Date.now();
  await work();
  const seconds = (Date.now() - started) / 1000;
  const [own, db] = await Promise.all([server.stop(), database?.stop()]);
  if (own.instructions === null) throw new Error("perf stat counted no instructions");
  return {
    instructions: own.instructions,
    cycles: own.cycles,
    databaseInstructions: db?.instructions ?? null,
    seconds,
  };
}

// Each callgrind dump writes callgrind.out.<pid>.<n>: its `totals:` line is the count since the one before.
let dumps = 0;
async function countWithCallgrind(pid: number, work: () => Promise<unknown>): Promise<Count> {
  const control = (...a: string[]) => execFileSync("callgrind_control", [...a, String(pid)], { stdio: "pipe" });
  control("--zero");
  control("--instr=on");
  const started = Date.now();
  await work();
  control("--instr=off");
  const seconds = (Date.now() - started) / 1000;
  control("--dump");
  const file = path.join(outDir, `callgrind.out.${pid}.${++dumps}`);
  for (let t = 0; ; t++) {
    const totals = existsSync(file) && /^totals: (\d+)$/m.exec(readFileSync(file, "utf8"));
    if (totals) return { instructions: Number(totals[1]), cycles: null, databaseInstructions: null, seconds };
    if (t > 600) throw new Error(`no callgrind totals in ${file}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function measure(target: Target) {
  const load = voiceLoad(target);
  const settle = () => new Promise((r) => setTimeout(r, 500)); // the call log's batch (25 ms linger) lands
  const t0 = Date.now();
  await load(warmUp);
  await settle();
  process.stderr.write(`${target.name}: warm-up of ${warmUp} requests in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  // A few more, uncounted, so that the count starts with the pool's connections open.
  await load(200);
  await settle();
  const db0 = await databaseCpu(stats, target.database);
  const cpu0 = processCpuMs(target.pid);
  const work = async () => {
    await load(measured);
    await settle();
  };
  const count =
    counter === "perf"
      ? await countWithPerf(target.pid, work, [...db0.keys()])
      : await countWithCallgrind(target.pid, work);
  // Everything the process did meanwhile counts: V8's compiler and collector threads, and Routekit's job
  // queue polling (a few per cent of the total), as on a production instance.
  return {
    side: target.name,
    instructionsPerRequest: Math.round(count.instructions / measured),
    cyclesPerRequest: count.cycles === null ? null : Math.round(count.cycles / measured),
    postgresInstructionsPerRequest:
      count.databaseInstructions === null ? null : Math.round(count.databaseInstructions / measured),
    processCpuMsPerRequest: +((processCpuMs(target.pid) - cpu0) / measured).toFixed(3),
    postgresCpuMsPerRequest: +(cpuSince(db0, await databaseCpu(stats, target.database)) / measured).toFixed(3),
    requestsPerSecond: +(measured / count.seconds).toFixed(0),
  };
}

try {
  const results = [];
  // One side at a time: the other is not started yet, or stopped, so it takes none of the machine.
  for (const side of sides === "both" ? (["reference", "product"] as const) : [sides as "product" | "reference"]) {
    const target = side === "product" ? await productTarget() : await referenceTarget();
    results.push(await measure(target));
    while (stops.length) await stops.pop()!();
    for (const s of scripts.filter((c) => c.pid === target.pid)) s.kill("SIGTERM");
  }
  const product = results.find((r) => r.side === "product");
  const reference = results.find((r) => r.side === "reference");
  console.log(
    JSON.stringify(
      {
        at: new Date().toISOString(),
        commit: execFileSync("git", ["rev-parse", "--short", "HEAD"]).toString().trim(),
        counter,
        measured,
        warmUp,
        concurrency,
        results,
        ...(product && reference
          ? {
              referenceInstructionsPerProduct: +(
                reference.instructionsPerRequest / product.instructionsPerRequest
              ).toFixed(3),
              referenceCyclesPerProduct:
                reference.cyclesPerRequest && product.cyclesPerRequest
                  ? +(reference.cyclesPerRequest / product.cyclesPerRequest).toFixed(3)
                  : null,
            }
          : {}),
      },
      null,
      2,
    ),
  );
} catch (err) {
  failed = true;
  console.error(err);
  if (productLog) console.error(`Routekit's log is kept in ${productLog}`);
} finally {
  while (stops.length) await stops.pop()!().catch(() => undefined);
  for (const s of scripts) s.kill("SIGTERM");
  for (const name of databases)
    await stats.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
  await stats.end();
}
process.exit(failed ? 1 : 0);
