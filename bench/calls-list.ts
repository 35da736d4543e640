// GET /api/calls must cost the same at any depth and any history: the first page and a deep page
// (a cursor near the account's oldest call) have p95 within 20% of each other, with 1,000 calls
// and with 1,000,000 (keyset over the index on (accountId, createdAt desc, id desc)).
//   npx tsx bench/calls-list.ts [requests=1000] [large=1000000] [small=1000]
// Needs a real PostgreSQL. Uses DATABASE_URL when set (a scratch database: it gets a million calls),
// else creates rk_bench_calls on postgresql://postgres@127.0.0.1:5432 and drops it at the end.
// Starts the BUILT server (`npm run build`).
import { loadavg } from "node:os";
import { encodeKeysetCursor } from "../src/server/services/pagination/keyset-cursor";
import {
  latencyStats as stats,
  newPaidAccount,
  scratchDatabase,
  seededAccounts,
  sequentialGetter,
  sleep,
  startBenchServer,
} from "./support/api-bench";
import { seedCalls } from "./calls-seed";

const requests = Number(process.argv[2] ?? 1000);
const sizes = { small: Number(process.argv[4] ?? 1000), large: Number(process.argv[3] ?? 1_000_000) };
// The API allows 50 requests/s per account (bursts of 100): two requests per account per tick stay under it.
const ticksPerSecond = 15;

const database = await scratchDatabase("rk_bench_calls");
const databaseUrl = database.url;
const server = await startBenchServer("bench-calls", databaseUrl);
const { get, close: closeGetter } = sequentialGetter(server.baseUrl);
const newAccount = (tag: string) => newPaidAccount(server.baseUrl, tag);

type Target = { name: string; apiKey: string; path: string };
// Every target in every tick, in a rotating order, so first and deep pages at both sizes share the
// same moment-to-moment conditions of this shared machine (its load moves a lot within a run).
async function measure(targets: Target[], count: number, warm: number) {
  const ms: Record<string, number[]> = {};
  const errors: Record<string, number> = {};
  const last: Record<string, string> = {};
  for (const t of targets) {
    ms[t.name] = [];
    errors[t.name] = 0;
  }
  const t0 = performance.now();
  for (let i = 0; i < warm + count; i++) {
    const due = t0 + (i * 1000) / ticksPerSecond;
    if (due > performance.now()) await sleep(due - performance.now());
    for (let k = 0; k < targets.length; k++) {
      const t = targets[(i + k) % targets.length]!;
      const r = await get(t.path, t.apiKey);
      if (r.status !== 200) {
        errors[t.name]!++;
        if (errors[t.name] === 1) console.error(`${t.name}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
      } else if (i >= warm) ms[t.name]!.push(r.ms);
      last[t.name] = r.body;
    }
  }
  return { ms, errors, last };
}

let passed = false;
try {
  const accounts = { small: await newAccount("small"), large: await newAccount("large") };
  // A deep page: the position 100 calls before the oldest, so the page is full and at the far end of history.
  const { seedSeconds, inspected: deep } = await seededAccounts({
    databaseUrl,
    accounts,
    sizes,
    seed: seedCalls,
    tables: ["Call", "UsageRecord"],
    inspect: async (sql) => {
      const cursors: Record<string, string> = {};
      for (const name of ["small", "large"] as const) {
        const { rows } = await sql.query<{ createdAt: Date; id: string }>(
          `SELECT "createdAt", "id" FROM "Call" WHERE "accountId" = $1 ORDER BY "createdAt" ASC, "id" ASC OFFSET 100 LIMIT 1`,
          [accounts[name].id],
        );
        cursors[name] = encodeKeysetCursor(rows[0]!);
      }
      return cursors;
    },
  });

  const loadBefore = Math.round(loadavg()[0]! * 100) / 100;
  const targets: Target[] = (["small", "large"] as const).flatMap((n) => [
    { name: `${n}First`, apiKey: accounts[n].apiKey, path: "/api/calls?limit=50" },
    { name: `${n}Deep`, apiKey: accounts[n].apiKey, path: `/api/calls?limit=50&cursor=${deep[n]}` },
  ]);
  const run = await measure(targets, requests, 100);
  const correct =
    Object.values(run.errors).every((e) => e === 0) &&
    targets.every((t) => (JSON.parse(run.last[t.name]!) as { calls: unknown[] }).calls.length === 50);
  const f = { small: stats(run.ms.smallFirst!), large: stats(run.ms.largeFirst!) };
  const d = { small: stats(run.ms.smallDeep!), large: stats(run.ms.largeDeep!) };
  const all = [f.small.p95, f.large.p95, d.small.p95, d.large.p95];
  const ratio = Math.round((Math.max(...all) / Math.min(...all)) * 1000) / 1000;
  const within = ratio <= 1.2;
  console.log(
    JSON.stringify({
      bench: "calls-list",
      database: database.label,
      calls: sizes,
      seedSeconds,
      loadAverage1m: loadBefore,
      correct,
      firstPage: f,
      deepPage: d,
      errors: run.errors,
      maxOverMinP95: ratio,
      within20Percent: within,
    }),
  );
  console.log(
    `GET /api/calls?limit=50 p95 — first page: ${f.small.p95} ms (${sizes.small} calls), ${f.large.p95} ms (${sizes.large}); ` +
      `deep page: ${d.small.p95} ms, ${d.large.p95} ms → max/min ${ratio} (${within ? "within" : "NOT within"} 20%); pages ${correct ? "full" : "NOT full"}`,
  );
  passed = within && correct;
} finally {
  closeGetter();
  await server.stop();
  await database.drop();
}
process.exit(passed ? 0 : 1);
