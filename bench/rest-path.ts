// What the REST path costs: GET /api/account at 10 connections beside two floors, in one run.
//   npx tsx bench/rest-path.ts [rounds=6] [secondsPerRound=3] [connections=10]
// 1. bare: node:http + pg doing the same read (bench/support/bare-account-server.mjs), its own process;
// 2. health: GET /api/health, no database, through the same server, Next.js handler and REST table;
// 3. account: GET /api/account with API keys (authentication, rate limit, the read).
// The three take turns, a few seconds each, round after round, so a machine whose load
// changes (this one is shared) weighs on all three alike. Besides req/s and latency, the
// server's own CPU per request (from /proc, less what it burns when idle) is printed: it depends far less on the load.
// The API allows 50 requests/s per account, so the account phase spreads its requests over
// enough paid accounts to stay under that (a 429 would be a cheap answer; any non-200 fails the run).
// Uses DATABASE_URL when set (a scratch database), else creates rk_bench_rest on
// postgresql://postgres@127.0.0.1:5432 and drops it. Starts the BUILT server (`npm run build`).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { loadavg } from "node:os";
import { closedLoop } from "./support/closed-loop";
import { latencyStats, newPaidAccount, scratchDatabase, startBenchServer } from "./support/api-bench";
import { processCpuMs } from "./support/process-cpu";

const rounds = Number(process.argv[2] ?? 6);
const seconds = Number(process.argv[3] ?? 3);
const connections = Number(process.argv[4] ?? 10);
// 30 accounts × 50 requests/s = 1,500 requests/s before any account meets its limit (BENCH_ACCOUNTS for more);
// each account is then busy enough that its rate-limit lease (10 tokens) is mostly spent before it lapses.
const accountCount = Number(process.env.BENCH_ACCOUNTS ?? 30);

const database = await scratchDatabase("rk_bench_rest");
const server = await startBenchServer("bench-rest", database.url);
const bare = spawn(process.execPath, ["bench/support/bare-account-server.mjs", database.url], {
  stdio: ["ignore", "pipe", "inherit"],
});
let passed = false;
try {
  const [portLine] = (await once(bare.stdout!, "data")) as [Buffer];
  const bareUrl = `http://127.0.0.1:${portLine.toString().trim()}`;

  const keys: string[] = [];
  for (let i = 0; i < accountCount; i += 4) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(4, accountCount - i) }, (_, j) => newPaidAccount(server.baseUrl, `rest-${i + j}`)),
    );
    keys.push(...batch.map((a) => a.apiKey));
  }
  const withKey = (i: number) => ({ authorization: `Bearer ${keys[i % keys.length]}` });
  const targets = [
    { name: "bare node:http + pg, same read", url: `${bareUrl}/api/account`, pid: bare.pid!, headersOf: withKey },
    { name: "GET /api/health (no database)", url: `${server.baseUrl}/api/health`, pid: server.child.pid! },
    {
      name: "GET /api/account (API key)",
      url: `${server.baseUrl}/api/account`,
      pid: server.child.pid!,
      headersOf: withKey,
    },
  ];
  const totals = targets.map(() => ({ ms: [] as number[], statuses: {} as Record<number, number>, cpuMs: 0 }));
  // Each round's account ÷ health, by throughput and by CPU: paired within a round, so a machine whose
  // speed drifts between rounds (this one is shared) moves both sides of each ratio alike.
  const roundRatios: { rps: number; cpu: number }[] = [];

  // What each process burns doing nothing (the server's job-queue polling, timers), taken off the per-request figure.
  const idleSeconds = 3;
  const idleBefore = targets.map((t) => processCpuMs(t.pid));
  await new Promise((r) => setTimeout(r, idleSeconds * 1000));
  const idleCpuPerSecond = targets.map((t, i) => (processCpuMs(t.pid) - idleBefore[i]!) / idleSeconds);

  const loads: number[] = [];
  // Round 0 warms each target up (JIT, prepared statements, pools) and is not counted.
  for (let round = 0; round <= rounds; round++) {
    loads.push(loadavg()[0]!);
    const thisRound: { n: number; cpuMs: number }[] = [];
    for (const [i, t] of targets.entries()) {
      const cpuBefore = processCpuMs(t.pid);
      // No warm-up inside a round (round 0 is the warm-up), so the CPU measured covers just the counted requests.
      const r = await closedLoop({ url: t.url, connections, seconds, warmupSeconds: 0, headersOf: t.headersOf });
      if (round === 0) continue;
      const cpuMs = processCpuMs(t.pid) - cpuBefore - idleCpuPerSecond[i]! * seconds;
      thisRound.push({ n: r.ms.length, cpuMs });
      totals[i]!.cpuMs += cpuMs;
      totals[i]!.ms.push(...r.ms);
      for (const [status, n] of Object.entries(r.statuses))
        totals[i]!.statuses[Number(status)] = (totals[i]!.statuses[Number(status)] ?? 0) + n;
    }
    if (round > 0) {
      const [health, account] = [thisRound[1]!, thisRound[2]!];
      roundRatios.push({ rps: account.n / health.n, cpu: health.cpuMs / health.n / (account.cpuMs / account.n) });
    }
  }

  const load = loads.map((l) => l.toFixed(1)).join(", ");
  console.log(
    `\n${connections} connections; ${rounds} rounds of ${seconds} s per route, taking turns; ${accountCount} accounts; load average at each round: ${load}`,
  );
  console.log(`server CPU when idle: ${idleCpuPerSecond[1]!.toFixed(0)} ms/s`);
  console.log("| route | req/s | p50 ms | p99 ms | server CPU per request | statuses |\n|---|---|---|---|---|---|");
  const rps: number[] = [];
  for (const [i, t] of targets.entries()) {
    const { ms, statuses, cpuMs } = totals[i]!;
    const s = latencyStats(ms);
    rps.push(s.n / (rounds * seconds));
    console.log(
      `| ${t.name} | ${Math.round(rps[i]!)} | ${s.p50} | ${s.p99} | ${(cpuMs / s.n).toFixed(2)} ms | ${JSON.stringify(statuses)} |`,
    );
  }
  const cpu = totals.map((t) => t.cpuMs / t.ms.length);
  console.log(
    `\nGET /api/account ÷ GET /api/health: throughput ${(rps[2]! / rps[1]!).toFixed(2)} (target ≥ 0.8); by server CPU per request ${(cpu[1]! / cpu[2]!).toFixed(2)}`,
  );
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
  const byRps = roundRatios.map((r) => r.rps);
  const byCpu = roundRatios.map((r) => r.cpu);
  console.log(
    `round by round (paired): throughput median ${median(byRps).toFixed(2)} (${range(byRps)}); by CPU median ${median(byCpu).toFixed(2)} (${range(byCpu)})`,
  );
  passed = totals.every((t) => Object.keys(t.statuses).every((s) => s === "200"));
  if (!passed) console.log("FAIL: a response other than 200");
} finally {
  bare.kill("SIGTERM");
  await server.stop();
  await database.drop();
}
process.exit(passed ? 0 : 1);
