// Seeds call history straight into PostgreSQL: calls of every ending spread over the past year, with
// the usage records of the completed ones, shaped as the engine writes them (engine/sql/insert-call.ts, call-log.ts).
//   npx tsx bench/calls-seed.ts <databaseUrl> <accountId> <count>
// The columns are typed by the schema (tests/support/seed.ts); the rows are made by PostgreSQL.
import { pathToFileURL } from "node:url";
import { sql } from "kysely";
import pg from "pg";
import { build, run } from "../tests/support/seed";

// One call in 20 ends other than completed; one in 50 fell back; one in 100 was rejected.
const STATUS = sql`CASE WHEN i % 100 = 0 THEN 'rejected' WHEN i % 20 = 1 THEN 'busy' WHEN i % 20 = 2 THEN 'no-answer'
  WHEN i % 20 = 3 THEN 'failed' WHEN i % 20 = 4 THEN 'canceled' ELSE 'completed' END`;

export async function seedCalls(client: pg.ClientBase, accountId: string, count: number): Promise<void> {
  await client.query("BEGIN");
  try {
    await run(
      client,
      build
        .insertInto("Call")
        .columns([
          "id",
          "callSid",
          "accountId",
          "phoneNumberId",
          "direction",
          "fromNumber",
          "toNumber",
          "status",
          "statusRank",
          "durationSeconds",
          "onCallStartUrl",
          "onCallEndUrl",
          "endedAt",
          "lastRequestAt",
          "createdAt",
          "updatedAt",
          "answer",
          "errorCode",
          "errorMessage",
        ])
        .expression(
          sql`SELECT 'seed' || md5(${accountId}::text || ':' || i), 'CA' || md5('sid:' || ${accountId}::text || ':' || i), ${accountId}::text, NULL, 'inbound',
                '+1415555' || lpad((i % 10000)::text, 4, '0'), '+14155550123', s.status, 10,
                CASE WHEN s.status = 'completed' THEN ((i::bigint * 7919) % 900)::int ELSE 0 END,
                'https://api.example.com/start', 'https://api.example.com/end', t.at, t.at, t.at, t.at,
                CASE WHEN s.status = 'rejected' THEN 'reject' WHEN i % 50 = 5 THEN 'fallback' ELSE 'xml' END,
                CASE WHEN s.status = 'rejected' THEN 'ACCOUNT_SUSPENDED' WHEN i % 50 = 5 THEN 'START_CALLBACK_TIMEOUT' WHEN s.status = 'failed' THEN 'CALL_FAILED' END,
                CASE WHEN s.status = 'rejected' OR i % 50 = 5 OR s.status = 'failed' THEN 'seeded' END
              FROM generate_series(1, ${count}::int) AS i,
                   LATERAL (SELECT ${STATUS} AS status) AS s,
                   LATERAL (SELECT now() - make_interval(secs => (i::float8 / ${count}::int) * 365 * 86400) AS at) AS t`,
        ),
    );
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
          sql`SELECT 'seedu' || c."id", c."accountId", c."callSid", NULL, 'inbound', c."fromNumber", c."toNumber", c."durationSeconds", m, m * 0.02,
                jsonb_build_object('durationSeconds', c."durationSeconds", 'billedMinutes', m, 'perMinuteRate', 0.02, 'usageCost', m * 0.02,
                                   'totalCost', m * 0.02, 'currency', 'usd'),
                c."endedAt"
              FROM "Call" c, LATERAL (SELECT ceil(c."durationSeconds" / 60.0)::int AS m) AS mins
              WHERE c."accountId" = ${accountId}::text AND c."status" = 'completed'`,
        ),
    );
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK");
    throw err;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [url, accountId, count] = process.argv.slice(2);
  if (!url || !accountId || !count)
    throw new Error("usage: npx tsx bench/calls-seed.ts <databaseUrl> <accountId> <count>");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await seedCalls(client, accountId, Number(count));
  console.log(JSON.stringify({ accountId, seeded: Number(count) }));
  await client.end();
}
