// The delivery queue's claim (src/server/jobs/delivery-queue/postgres-delivery-queue.ts) as failing customers'
// backlogs grow: 10 failing customers share a due backlog of 1,000, 10,000, then 100,000 deliveries, beside a
// healthy customer with 50 due. Each measure times 300 claims of up to 50 (the worker's size), each put back
// at once so the next finds the same queue:
//   capped     the failing customers' lanes are at their cap (passed over), as on a worker that holds them
//   claimable  nothing is held back: the failing lanes take their turns too
//   npx tsx bench/delivery-claim.ts [sizes=1000,10000,100000]
// Uses DATABASE_URL when set (use a scratch database), else an embedded one in a temp dir.
import { sql } from "kysely";
import { bootDeliveryBench } from "./support/in-process-delivery";

const { booted, register, kysely, stopJobQueue } = await bootDeliveryBench();
const { configureDeliveryQueue, deliveryQueue } = await import(
  "../src/server/jobs/delivery-queue/postgres-delivery-queue"
);
configureDeliveryQueue({ name: `claim_bench_${process.pid}` });
const queue = deliveryQueue();
const sizes = (process.argv[2] ?? "1000,10000,100000").split(",").map(Number);
const CLAIMS = 300;

const failing = await Promise.all(Array.from({ length: 10 }, (_, i) => register(`failing${i}`)));
const healthy = await register("healthy");

/** `count` due deliveries of `accountId` to `url`, queued on the bench's queue. */
async function seed(accountId: string, url: string, count: number): Promise<void> {
  await kysely()
    .insertInto("WebhookDelivery")
    .columns(["accountId", "eventId", "eventType", "url", "payload", "nextAttemptAt", "queue", "lane", "runAt"])
    .expression(
      kysely()
        .selectFrom(sql<{ n: number }>`(SELECT generate_series(1, ${count}) AS n)`.as("s"))
        .select([
          sql.val(accountId).as("accountId"),
          sql<string>`'evt_bench_' || md5(random()::text)`.as("eventId"),
          sql.val("call.ended").as("eventType"),
          sql.val(url).as("url"),
          sql.val("{}").as("payload"),
          sql<Date>`now() - interval '1 hour'`.as("nextAttemptAt"),
          sql.val(queue.name).as("queue"),
          sql<string>`routekit_lane(${accountId}, ${url})`.as("lane"),
          sql<Date>`now() - interval '1 hour' + s.n * interval '1 ms'`.as("runAt"),
        ]),
    )
    .execute();
}
const laneOf = async (accountId: string, url: string) =>
  (await sql<{ lane: string }>`SELECT routekit_lane(${accountId}, ${url}) AS lane`.execute(kysely())).rows[0]!.lane;

await seed(healthy.id, "http://127.0.0.1:9/healthy", 50);
const failingLanes = await Promise.all(failing.map((a, i) => laneOf(a.id, `http://127.0.0.1:9/failing-${i}`)));
let seeded = 0;
const results: Record<string, unknown>[] = [];
for (const size of sizes) {
  for (const [i, a] of failing.entries()) await seed(a.id, `http://127.0.0.1:9/failing-${i}`, (size - seeded) / 10);
  seeded = size;
  await sql`ANALYZE "WebhookDelivery"`.execute(kysely());
  const row: Record<string, unknown> = { failingBacklog: size };
  for (const mode of ["capped", "claimable"] as const) {
    const times: number[] = [];
    let got = 0;
    let after = "";
    for (let i = 0; i < CLAIMS; i++) {
      const t = performance.now();
      const claimed = await queue.claim({
        limit: 50,
        after,
        skip: mode === "capped" ? failingLanes : [],
        only: null,
        rooms: new Map(),
        room: 10,
        fastLanes: [],
        skipAccounts: [],
        accountRooms: new Map(),
        accountRoom: 10,
      });
      times.push(performance.now() - t);
      got += claimed.length;
      after = claimed.at(-1)?.lane ?? "";
      await queue.putBack(claimed.map((c) => ({ id: c.id, until: new Date(Date.now() - 3600_000) })));
    }
    times.sort((x, y) => x - y);
    row[mode] = {
      claimMs: { p50: times[CLAIMS / 2]!.toFixed(2), p99: times[Math.floor(CLAIMS * 0.99)]!.toFixed(2) },
      perClaim: Math.round(got / CLAIMS),
    };
  }
  results.push(row);
  console.log(JSON.stringify(row));
}
console.log(JSON.stringify({ database: booted.embedded ? "embedded (PGlite)" : "PostgreSQL", claims: CLAIMS }));
await stopJobQueue();
await booted.shutdown();
process.exit(0);
