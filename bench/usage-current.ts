// GET /api/usage/current must not depend on history: p95 with 1,000,000 usage records within 20% of
// p95 with 1,000 (the summary reads the running totals in "UsageTotal", never the records).
//   npx tsx bench/usage-current.ts [requests=2000] [large=1000000] [small=1000]
// Needs a real PostgreSQL: seeding a million rows into the embedded PGlite takes far too long. Uses
// DATABASE_URL when set (a scratch database: it gets a million rows), else creates rk_bench_usage on
// postgresql://postgres@127.0.0.1:5432 and drops it at the end. Starts the BUILT server (`npm run build`).
import { randomInt } from "node:crypto";
import http from "node:http";
import { loadavg } from "node:os";
import { startBuiltServer } from "../scripts/built-server";
import pg from "pg";
import { recordSums, seedUsage } from "./seed-usage";

const requests = Number(process.argv[2] ?? 2000);
const sizes = { small: Number(process.argv[4] ?? 1000), large: Number(process.argv[3] ?? 1_000_000) };
const warmup = 200;
// The API allows 50 requests/s per account (bursts of 100): stay under it, or we would time 429s.
const perAccountRate = 40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- a database of our own
let databaseUrl = process.env.DATABASE_URL;
const ownDatabase = !databaseUrl;
const adminUrl = "postgresql://postgres@127.0.0.1:5432/postgres";
async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(statement).finally(() => client.end());
}
if (ownDatabase) {
  console.log("DATABASE_URL is unset: using a scratch PostgreSQL database rk_bench_usage (PGlite is too slow to seed 1M rows)");
  await admin(`DROP DATABASE IF EXISTS rk_bench_usage WITH (FORCE)`);
  await admin(`CREATE DATABASE rk_bench_usage`);
  databaseUrl = "postgresql://postgres@127.0.0.1:5432/rk_bench_usage";
}

// ---- the built server: LOG_LEVEL stays production's level, since the request log line is part of the cost
const server = await startBuiltServer({ name: "bench-usage", env: { DATABASE_URL: databaseUrl, LOG_LEVEL: process.env.LOG_LEVEL ?? "info" } });
const { baseUrl } = server;
const port = Number(new URL(baseUrl).port);

async function newAccount(tag: string): Promise<{ id: string; apiKey: string }> {
  const res = await fetch(`${baseUrl}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}` },
    body: JSON.stringify({ email: `bench-${tag}-${Date.now()}@example.com`, password: "benchmark-password" }),
  });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { account: { id: string }; apiKey: string; checkoutUrl: string };
  await (await fetch(body.checkoutUrl)).text(); // local billing: opening the checkout pays
  return { id: body.account.id, apiKey: body.apiKey };
}

// Sequential GETs on one keep-alive connection: one request in flight, so we time the request, not a queue.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function get(p: string, apiKey: string): Promise<{ ms: number; status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    http
      .get({ host: "127.0.0.1", port, path: p, agent, headers: { authorization: `Bearer ${apiKey}` } }, (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}
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
const pct = (s: number[], p: number) => Math.round((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN) * 100) / 100;
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p95: pct(s, 95), p99: pct(s, 99), max: pct(s, 100) };
};

let passed = false;
try {
  const accounts = { small: await newAccount("small"), large: await newAccount("large") };

  const sql = new pg.Client({ connectionString: databaseUrl });
  await sql.connect();
  const seedStarted = performance.now();
  for (const name of ["small", "large"] as const) await seedUsage(sql, accounts[name].id, sizes[name]);
  const seedSeconds = Math.round((performance.now() - seedStarted) / 100) / 10;
  // ANALYZE for real statistics; VACUUM sets the visibility map, as autovacuum would have long since.
  await sql.query(`VACUUM ANALYZE "UsageRecord", "UsageTotal"`);
  const expected = { small: await recordSums(sql, accounts.small.id), large: await recordSums(sql, accounts.large.id) };
  await sql.end();

  const loadBefore = Math.round(loadavg()[0]! * 100) / 100;
  const current = await measure(accounts, "/api/usage/current", requests, warmup);
  const list = await measure(accounts, "/api/usage?limit=50", Math.round(requests / 4), 50);

  // The figures only count if the answers are right: the totals match what the records sum to.
  const answered = { small: JSON.parse(current.last.small), large: JSON.parse(current.last.large) };
  const correct = (["small", "large"] as const).every(
    (n) => answered[n].allTime.calls === expected[n].all && answered[n].currentMonth.calls === expected[n].month && JSON.parse(list.last[n]).records.length === 50,
  );
  const c = { small: stats(current.ms.small), large: stats(current.ms.large) };
  const ratio = Math.round((c.large.p95 / c.small.p95) * 1000) / 1000;
  const within = Math.abs(ratio - 1) <= 0.2;
  const listed = { small: stats(list.ms.small), large: stats(list.ms.large) };
  console.log(
    JSON.stringify({
      bench: "usage-current",
      database: ownDatabase ? "PostgreSQL (scratch rk_bench_usage)" : "PostgreSQL (DATABASE_URL)",
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
  agent.destroy();
  await server.stop();
  if (ownDatabase) await admin(`DROP DATABASE IF EXISTS rk_bench_usage WITH (FORCE)`);
}
process.exit(passed ? 0 : 1);
