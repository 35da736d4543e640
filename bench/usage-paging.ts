// GET /api/usage must cost the same at any depth with a cursor (docs/decisions.md §11): p95 of the first page,
// of a page half a million records deep by cursor, and (for comparison) by offset, on one account
// with 1,000,000 usage records (bench/seed-usage.ts).
//   npx tsx bench/usage-paging.ts [requests=400] [records=1000000] [offsetRequests=60]
// Needs a real PostgreSQL, as bench/usage-current.ts does: DATABASE_URL (a scratch database), else a
// database rk_bench_paging on postgresql://postgres@127.0.0.1:5432, dropped at the end. Starts the BUILT server.
import { loadavg } from "node:os";
import pg from "pg";
import { encodeKeysetCursor } from "../src/server/services/pagination/keyset-cursor";
import { seedUsage } from "./seed-usage";
import {
  latencyStats,
  newPaidAccount,
  scratchDatabase,
  sequentialGetter,
  sleep,
  startBenchServer,
} from "./support/api-bench";

const requests = Number(process.argv[2] ?? 400);
const records = Number(process.argv[3] ?? 1_000_000);
const offsetRequests = Number(process.argv[4] ?? 60);
const depth = Math.floor(records / 2);
// The API allows 50 requests/s per account: stay under it, or we would time 429s.
const perSecond = 40;

const database = await scratchDatabase("rk_bench_paging");
const databaseUrl = database.url;
const server = await startBenchServer("bench-paging", databaseUrl);
const { get, close: closeGetter } = sequentialGetter(server.baseUrl);
const stats = (xs: number[]) => {
  const { n, p50, p95, max } = latencyStats(xs);
  return { n, p50, p95, max };
};

/** Paced sequential GETs (one in flight): the request's own time, not a queue's. */
async function measure(p: string, apiKey: string, count: number, warm = 20) {
  const ms: number[] = [];
  let errors = 0;
  let last = "";
  const t0 = performance.now();
  for (let i = 0; i < warm + count; i++) {
    const due = t0 + (i * 1000) / perSecond;
    if (due > performance.now()) await sleep(due - performance.now());
    const r = await get(p, apiKey);
    if (r.status !== 200) errors++;
    else if (i >= warm) ms.push(r.ms);
    last = r.body;
  }
  return { ...stats(ms), errors, last: JSON.parse(last) as { records: { id: string }[]; nextCursor: string | null } };
}

let passed = false;
try {
  const paid = await newPaidAccount(server.baseUrl, "paging");
  const account = { account: { id: paid.id }, apiKey: paid.apiKey };

  const sql = new pg.Client({ connectionString: databaseUrl });
  await sql.connect();
  const seedStarted = performance.now();
  await seedUsage(sql, account.account.id, records);
  const seedSeconds = Math.round((performance.now() - seedStarted) / 100) / 10;
  await sql.query(`VACUUM ANALYZE "UsageRecord"`);
  // The cursor a client holds after paging `depth` records, and the page that must follow it.
  const { rows } = await sql.query<{ createdAt: Date; id: string }>(
    `SELECT "createdAt", "id" FROM "UsageRecord" WHERE "accountId" = $1
     ORDER BY "createdAt" DESC, "id" DESC OFFSET $2 LIMIT 51`,
    [account.account.id, depth - 1],
  );
  await sql.end();
  const cursor = encodeKeysetCursor(rows[0]!);
  const expectedDeep = rows.slice(1).map((r) => r.id);

  const loadAverage1m = Math.round(loadavg()[0]! * 100) / 100;
  const first = await measure("/api/usage?limit=50", account.apiKey, requests);
  const deep = await measure(`/api/usage?limit=50&cursor=${cursor}`, account.apiKey, requests);
  const byOffset = await measure(`/api/usage?limit=50&offset=${depth}`, account.apiKey, offsetRequests, 3);

  // The figures count only if the pages are right: the deep page is exactly the 50 records after the cursor, and offset agrees.
  const correct =
    first.last.records.length === 50 &&
    JSON.stringify(deep.last.records.map((r) => r.id)) === JSON.stringify(expectedDeep) &&
    JSON.stringify(byOffset.last.records.map((r) => r.id)) === JSON.stringify(expectedDeep) &&
    deep.last.nextCursor !== null;
  const ratio = Math.round((deep.p95 / first.p95) * 100) / 100;
  const { last: _f, ...firstStats } = first;
  const { last: _d, ...deepStats } = deep;
  const { last: _o, ...offsetStats } = byOffset;
  console.log(
    JSON.stringify({
      bench: "usage-paging",
      records,
      depth,
      seedSeconds,
      loadAverage1m,
      correct,
      firstPage: firstStats,
      cursorAtDepth: deepStats,
      offsetAtDepth: offsetStats,
      cursorToFirstP95: ratio,
    }),
  );
  console.log(
    `GET /api/usage?limit=50 p95 with ${records} records: first page ${first.p95} ms, cursor ${depth} deep ${deep.p95} ms (×${ratio}), offset ${depth} ${byOffset.p95} ms; pages ${correct ? "correct" : "WRONG"}`,
  );
  // Within 30% of the first page counts as "the same at any depth" on a shared 2-core host.
  passed = correct && ratio <= 1.3;
} finally {
  closeGetter();
  await server.stop();
  await database.drop();
}
process.exit(passed ? 0 : 1);
