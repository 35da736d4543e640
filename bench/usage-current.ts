// GET /api/usage/current must not depend on history: p95 with 1,000,000 usage records within 20% of
// p95 with 1,000 (the summary reads the running totals in "UsageTotal", never the records).
//   npx tsx bench/usage-current.ts [requests=2000] [large=1000000] [small=1000]
// Needs a real PostgreSQL: seeding a million rows into the embedded PGlite takes far too long. Uses
// DATABASE_URL when set (a scratch database: it gets a million rows), else creates rk_bench_usage on
// postgresql://postgres@127.0.0.1:5432 and drops it at the end. Starts the BUILT server (`npm run build`).
import { loadavg } from "node:os";
import {
  latencyStats as stats,
  newPaidAccount,
  scratchDatabase,
  seededAccounts,
  sequentialGetter,
  sleep,
  startBenchServer,
} from "./support/api-bench";
import { recordSums, seedUsage } from "./seed-usage";

const requests = Number(process.argv[2] ?? 2000);
const sizes = { small: Number(process.argv[4] ?? 1000), large: Number(process.argv[3] ?? 1_000_000) };
const warmup = 200;
// The API allows 50 requests/s per account (bursts of 100): stay under it, or we would time 429s.
const perAccountRate = 40;

const database = await scratchDatabase("rk_bench_usage");
const databaseUrl = database.url;
const server = await startBenchServer("bench-usage", databaseUrl);
const { get, close: closeGetter } = sequentialGetter(server.baseUrl);
const newAccount = (tag: string) => newPaidAccount(server.baseUrl, tag);

type Accounts = Record<"small" | "large", { apiKey: string }>;
async function measure(accounts: Accounts, p: string, count: number, warm: number) {
  const ms = { small: [] as number[], large: [] as number[] };
  const errors = { small: 0, large: 0 };
  const last = { small: "", large: "" };
  const t0 = performance.now();
  for (let i = 0; i < warm + count; i++) {
    const due = t0 + (i * 1000) / perAccountRate;
    if (due > performance.now()) await sleep(due - performance.now());
    // Both accounts in every tick, so they share the same conditions; alternating who goes first.
    for (const name of i % 2 ? (["small", "large"] as const) : (["large", "small"] as const)) {
      const r = await get(p, accounts[name].apiKey);
      if (r.status !== 200) errors[name]++;
      else if (i >= warm) ms[name].push(r.ms);
      last[name] = r.body;
    }
  }
  return { ms, errors, last };
}

let passed = false;
try {
  const accounts = { small: await newAccount("small"), large: await newAccount("large") };

  const { seedSeconds, inspected: expected } = await seededAccounts({
    databaseUrl,
    accounts,
    sizes,
    seed: seedUsage,
    tables: ["UsageRecord", "UsageTotal"],
    inspect: async (sql) => ({
      small: await recordSums(sql, accounts.small.id),
      large: await recordSums(sql, accounts.large.id),
    }),
  });

  const loadBefore = Math.round(loadavg()[0]! * 100) / 100;
  const current = await measure(accounts, "/api/usage/current", requests, warmup);
  const list = await measure(accounts, "/api/usage?limit=50", Math.round(requests / 4), 50);

  // The figures only count if the answers are right: the totals match what the records sum to.
  const answered = { small: JSON.parse(current.last.small), large: JSON.parse(current.last.large) };
  const correct = (["small", "large"] as const).every(
    (n) =>
      answered[n].allTime.calls === expected[n].all &&
      answered[n].currentMonth.calls === expected[n].month &&
      JSON.parse(list.last[n]).records.length === 50,
  );
  const c = { small: stats(current.ms.small), large: stats(current.ms.large) };
  const ratio = Math.round((c.large.p95 / c.small.p95) * 1000) / 1000;
  const within = Math.abs(ratio - 1) <= 0.2;
  const listed = { small: stats(list.ms.small), large: stats(list.ms.large) };
  console.log(
    JSON.stringify({
      bench: "usage-current",
      database: database.label,
      records: sizes,
      seedSeconds,
      loadAverage1m: loadBefore, // other work on this host skews every figure: check it was idle
      pacedPerAccountPerSecond: perAccountRate,
      correct,
      current: { ...c, errors: current.errors, p95Ratio: ratio, within20Percent: within },
      listFirstPage: { ...listed, errors: list.errors },
    }),
  );
  console.log(
    `GET /api/usage/current p95: ${c.small.p95} ms with ${sizes.small} records, ${c.large.p95} ms with ${sizes.large} → ratio ${ratio} ` +
      `(${within ? "within" : "NOT within"} 20%); answers ${correct ? "match" : "DO NOT match"} the seeded records`,
  );
  console.log(`GET /api/usage?limit=50 p95: ${listed.small.p95} ms vs ${listed.large.p95} ms (for information)`);
  passed = within && correct;
} finally {
  closeGetter();
  await server.stop();
  await database.drop();
}
process.exit(passed ? 0 : 1);
