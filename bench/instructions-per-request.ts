// Instructions the server executes per voice request, counted by valgrind's callgrind: a figure that,
// unlike time or CPU seconds, does not move with what else the machine is doing, so two builds can be
// told apart by a few per cent (the side-by-side run's rounds spread by ±10 % on a shared machine).
//   npx tsx bench/instructions-per-request.ts [measured=1000] [warm-up=4000]
// Needs valgrind (Debian's package) and a built server (`npm run build`). Starts the BUILT server under
// `valgrind --tool=callgrind --instr-atstart=no` on a fresh database of DATABASE_URL's server (default
// postgresql://postgres@127.0.0.1:5432), with bench/reference/customer-backend.mjs as the number's
// onCallStartUrl; sends `warm-up` voice requests (new calls, 4 at a time) so that V8 has compiled the
// hot path, then counts the instructions of the next `measured` ones (callgrind_control switches the
// count on and off around them) and prints instructions per request, with the PostgreSQL backends' CPU
// per request beside it (CPU time, so that one does move with the machine). Startup under valgrind
// takes about a minute, a run three to four. Two runs of one build agree within 2-4 %.
// Figures go in docs/performance.md with the commit they were measured on.
import { execFileSync, spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort, siblingDatabase, startBuiltServer } from "../scripts/built-server";
import { newPaidAccount } from "./support/api-bench";
import { cpuSince, databaseCpu, processCpuMs } from "./support/process-cpu";

const measured = Number(process.argv[2] ?? 1000);
const warmUp = Number(process.argv[3] ?? 4000);
const CONCURRENCY = 4;

const serverUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const databaseUrl = await siblingDatabase(serverUrl, `ipr_${process.pid}`);
const database = new URL(databaseUrl).pathname.slice(1);

const backendPort = await freePort();
const backend = spawn(process.execPath, ["bench/reference/customer-backend.mjs"], {
  env: { ...process.env, PORT: String(backendPort) },
  stdio: "ignore",
});
const onCallStartUrl = `http://127.0.0.1:${backendPort}/call-start`;

const outDir = mkdtempSync(path.join(tmpdir(), "routekit-callgrind-"));
const server = await startBuiltServer({
  name: "bench-instructions",
  env: {
    DATABASE_URL: databaseUrl,
    CALLBACK_ALLOW_PRIVATE: "true",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
    // Switching the count on retranslates V8's code, a pause of seconds: the call.started POSTs in flight
    // then would fall back at the default 5 s, and an answer without the customer's TwiML stops the run.
    CALLBACK_START_TIMEOUT_MS: "14000",
  },
  wrapper: [
    "valgrind",
    "--tool=callgrind",
    "--instr-atstart=no",
    // V8 writes and rewrites its own machine code.
    "--smc-check=all-non-file",
    `--callgrind-out-file=${outDir}/callgrind.out.%p`,
  ],
  readyTimeoutMs: 900_000,
});
const pid = server.child.pid!;
const stats = new pg.Client({ connectionString: serverUrl });
await stats.connect();

try {
  const reg = await newPaidAccount(server.baseUrl, "instructions");
  const to = "+14155550123";
  const added = await fetch(`${server.baseUrl}/api/phone-numbers`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`,
      authorization: `Bearer ${reg.apiKey}`,
    },
    body: JSON.stringify({ phoneNumber: to, onCallStartUrl, onCallEndUrl: `http://127.0.0.1:${backendPort}/call-end` }),
  });
  if (added.status !== 201) throw new Error(`adding the number: ${added.status} ${await added.text()}`);
  const voicePath = new URL(reg.engineVoiceUrl).pathname;

  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let calls = 0;
  const voice = () =>
    new Promise<void>((resolve, reject) => {
      const body = new URLSearchParams({
        CallSid: `CA${(++calls).toString(16).padStart(8, "0")}${process.pid.toString(16).padStart(8, "0")}${randomInt(
          2 ** 40,
        )
          .toString(16)
          .padStart(16, "0")}`,
        AccountSid: "AC5170000000000000000000000000000a",
        From: "+14155550100",
        To: to,
        CallStatus: "ringing",
        Direction: "inbound",
        ApiVersion: "2010-04-01",
      }).toString();
      const url = new URL(server.baseUrl);
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: voicePath,
          method: "POST",
          agent,
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            "content-length": Buffer.byteLength(body),
            "user-agent": "TwilioProxy/1.1",
          },
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
  const load = async (n: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < n) await voice();
      }),
    );
  };
  const settle = () => new Promise((r) => setTimeout(r, 500)); // the call log's batch (25 ms linger) lands

  const t0 = Date.now();
  await load(warmUp);
  await settle();
  process.stderr.write(`warm-up: ${warmUp} requests in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);

  const control = (...args: string[]) => execFileSync("callgrind_control", [...args, String(pid)], { stdio: "pipe" });
  // Each dump writes callgrind.out.<pid>.<n>: its last line but a few is the instructions counted since the one before.
  let dumps = 0;
  const counted = async (work: () => Promise<unknown>): Promise<{ instructions: number; seconds: number }> => {
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
      if (totals) return { instructions: Number(totals[1]), seconds };
      if (t > 600) throw new Error(`no callgrind totals in ${file}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  // A few more, uncounted, so that the count starts with the pool's connections open.
  await load(200);
  await settle();
  const db0 = await databaseCpu(stats, database);
  const cpu0 = processCpuMs(pid);
  const busy = await counted(async () => {
    await load(measured);
    await settle();
  });
  const dbMs = cpuSince(db0, await databaseCpu(stats, database));
  const cpuMs = processCpuMs(pid) - cpu0;
  // Everything the process did meanwhile counts: V8's compiler and collector threads, and the job queue's
  // polling (a few per cent of the total), as on a production instance.
  const { instructions } = busy;
  console.log(
    JSON.stringify(
      {
        at: new Date().toISOString(),
        commit: execFileSync("git", ["rev-parse", "--short", "HEAD"]).toString().trim(),
        measured,
        warmUp,
        instructionsPerRequest: Math.round(instructions / measured),
        serverCpuMsPerRequestUnderValgrind: +(cpuMs / measured).toFixed(2),
        postgresCpuMsPerRequest: +(dbMs / measured).toFixed(3),
        requestsPerSecondUnderValgrind: +(measured / busy.seconds).toFixed(1),
      },
      null,
      2,
    ),
  );
} catch (err) {
  process.stderr.write(
    `${readFileSync(server.log, "utf8")
      .split("\n")
      .filter((l) => !l.includes('"msg":"request"'))
      .join("\n")
      .slice(-4000)}\n`,
  );
  throw err;
} finally {
  await stats.end();
  await server.stop();
  backend.kill();
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await admin.end();
}
