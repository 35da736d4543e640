// Seeds usage history straight into PostgreSQL: records spread over the past year, plus the running
// totals (one "UsageTotal" row per UTC month and one 'all') recomputed from the account's records, so
// they are exactly what the service itself would have accumulated.
//   npx tsx bench/seed-usage.ts <databaseUrl> <accountId> <count> [perMinuteRate=0.02]
// Column names mirror prisma/migrations/20261122032113_calls_and_usage/migration.sql.
import { pathToFileURL } from "node:url";
import pg from "pg";

export async function seedUsage(
  client: pg.ClientBase,
  accountId: string,
  count: number,
  perMinuteRate = 0.02,
): Promise<void> {
  await client.query("BEGIN");
  try {
    // Durations cycle over 0–899 s (0 bills 0 minutes); the cost is billedMinutes × rate, as
    // costBreakdown() computes it, and costBreakdown has the shape the API's output schema checks.
    await client.query(
      `INSERT INTO "UsageRecord" ("id", "accountId", "callSid", "phoneNumberId", "direction", "callerNumber",
                                  "calledNumber", "durationSeconds", "billedMinutes", "totalCost", "costBreakdown", "createdAt")
       SELECT 'seed' || md5($1 || ':' || i), $1, 'CA' || md5('sid:' || $1 || ':' || i), NULL, 'inbound',
              '+1415555' || lpad((i % 10000)::text, 4, '0'), '+14155550123', d, m, m * $3::numeric,
              jsonb_build_object('durationSeconds', d, 'billedMinutes', m, 'perMinuteRate', $3::numeric,
                                 'usageCost', m * $3::numeric, 'totalCost', m * $3::numeric, 'currency', 'usd'),
              now() - make_interval(secs => (i::float8 / $2) * 365 * 86400)
       FROM generate_series(1, $2::int) AS i,
            LATERAL (SELECT ((i::bigint * 7919) % 900)::int AS d) AS dur,
            LATERAL (SELECT ceil(d / 60.0)::int AS m) AS mins`,
      [accountId, count, perMinuteRate],
    );
    // ROLLUP gives one row per month plus the grand total, which becomes 'all'.
    await client.query(
      `INSERT INTO "UsageTotal" ("accountId", "period", "calls", "billedMinutes", "totalCost", "updatedAt")
       SELECT $1, COALESCE(month, 'all'), count(*), sum("billedMinutes"), sum("totalCost"), now()
       FROM (SELECT to_char("createdAt", 'YYYY-MM') AS month, "billedMinutes", "totalCost"
             FROM "UsageRecord" WHERE "accountId" = $1) AS r
       GROUP BY ROLLUP (month)
       ON CONFLICT ("accountId", "period") DO UPDATE SET
         "calls" = EXCLUDED."calls", "billedMinutes" = EXCLUDED."billedMinutes",
         "totalCost" = EXCLUDED."totalCost", "updatedAt" = now()`,
      [accountId],
    );
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK");
    throw err;
  }
}

/** What the records of the current UTC month and of all time add up to, to check the API against. */
export async function recordSums(client: pg.ClientBase, accountId: string): Promise<{ month: number; all: number }> {
  const { rows } = await client.query<{ month: string; all: string }>(
    `SELECT count(*) FILTER (WHERE "createdAt" >= date_trunc('month', now(), 'UTC')) AS month, count(*) AS all
     FROM "UsageRecord" WHERE "accountId" = $1`,
    [accountId],
  );
  return { month: Number(rows[0]!.month), all: Number(rows[0]!.all) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [url, accountId, count, rate] = process.argv.slice(2);
  if (!url || !accountId || !count)
    throw new Error("usage: npx tsx bench/seed-usage.ts <databaseUrl> <accountId> <count> [perMinuteRate]");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await seedUsage(client, accountId, Number(count), rate ? Number(rate) : undefined);
  console.log(JSON.stringify({ accountId, seeded: Number(count), ...(await recordSums(client, accountId)) }));
  await client.end();
}
