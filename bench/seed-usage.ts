// Seeds usage history straight into PostgreSQL: records spread over the past year, plus the running
// totals (one "UsageTotal" row per UTC month and one 'all') recomputed from the account's records, so
// they are exactly what the service itself would have accumulated.
//   npx tsx bench/seed-usage.ts <databaseUrl> <accountId> <count> [perMinuteRate=0.02]
// The columns are typed by the schema (tests/support/seed.ts); the rows are made by PostgreSQL, a million in seconds.
import { pathToFileURL } from "node:url";
import { sql } from "kysely";
import pg from "pg";
import { build, run } from "../tests/support/seed";

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
    const rate = sql`${perMinuteRate}::numeric`;
    await run(
      client,
      build
        .insertInto("UsageRecord")
        .columns([
          "id",
          "accountId",
          "callSid",
          "phoneNumberId",
          "direction",
          "callerNumber",
          "calledNumber",
          "durationSeconds",
          "billedMinutes",
          "totalCost",
          "costBreakdown",
          "createdAt",
        ])
        .expression(
          sql`SELECT 'seed' || md5(${accountId}::text || ':' || i), ${accountId}::text, 'CA' || md5('sid:' || ${accountId}::text || ':' || i), NULL, 'inbound',
                '+1415555' || lpad((i % 10000)::text, 4, '0'), '+14155550123', d, m, m * ${rate},
                jsonb_build_object('durationSeconds', d, 'billedMinutes', m, 'perMinuteRate', ${rate},
                                   'usageCost', m * ${rate}, 'totalCost', m * ${rate}, 'currency', 'usd'),
                now() - make_interval(secs => (i::float8 / ${count}::int) * 365 * 86400)
              FROM generate_series(1, ${count}::int) AS i,
                   LATERAL (SELECT ((i::bigint * 7919) % 900)::int AS d) AS dur,
                   LATERAL (SELECT ceil(d / 60.0)::int AS m) AS mins`,
        ),
    );
    // ROLLUP gives one row per month plus the grand total, which becomes 'all'.
    await run(
      client,
      build
        .insertInto("UsageTotal")
        .columns(["accountId", "period", "calls", "billedMinutes", "totalCost", "updatedAt"])
        .expression(
          sql`SELECT ${accountId}::text, COALESCE(month, 'all'), count(*), sum("billedMinutes"), sum("totalCost"), now()
              FROM (SELECT to_char("createdAt", 'YYYY-MM') AS month, "billedMinutes", "totalCost"
                    FROM "UsageRecord" WHERE "accountId" = ${accountId}::text) AS r
              GROUP BY ROLLUP (month)`,
        )
        .onConflict((conflict) =>
          conflict.columns(["accountId", "period"]).doUpdateSet((eb) => ({
            calls: eb.ref("excluded.calls"),
            billedMinutes: eb.ref("excluded.billedMinutes"),
            totalCost: eb.ref("excluded.totalCost"),
            updatedAt: sql<Date>`now()`,
          })),
        ),
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
