// Issue #42: the deliveries queued at upgrade time move onto the new queue, none lost and none doubled. A
// database is brought to the schema just before the queue's migration and given the old world's backlog:
// deliveries due now (first attempts, a retry whose time has come, a redeliver), retries scheduled later,
// finished ones and a synchronous call.started, each with its job on pg-boss's old `webhook-delivery` queue as
// the previous version sent them. Then the migration runs, the new worker starts, and each due delivery
// arrives once; the scheduled ones wait for their time, the finished ones are never sent, and the old queue
// is gone.
import { cpSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import PgBoss from "pg-boss";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { siblingDatabase } from "../../scripts/built-server";
import type { DB } from "../../src/generated/kysely/db";
import { encryptSecret, generateWebhookSecret } from "../../src/server/crypto/secret-box";
import { buildEvent } from "../../src/server/webhooks/event-envelope";
import { applyMigrations } from "../../src/server/db/apply-migrations";
import { disconnectDb, setConnectionUrl } from "../../src/server/db/client";
import { parseEnv, setEnv } from "../../src/server/env";
import { configureDeliveryQueue, DELIVERY_QUEUE } from "../../src/server/jobs/delivery-queue/postgres-delivery-queue";
import { jobQueue, stopJobQueue, stopTakingJobs } from "../../src/server/jobs/job-queue";
import { startDeliveryWorker } from "../../src/server/workers/delivery-worker";
import { TEST_AUTH_SECRET } from "../support/test-secrets";
import { startReceiver } from "../support/receiver";
import { until } from "../support/until";

const embedded = inject("embedded");
const repoMigrations = path.resolve(import.meta.dirname, "../../prisma/migrations");
const QUEUE_MIGRATION = readdirSync(repoMigrations).find((n) => n.endsWith("_delivery_queue"))!;

let databaseUrl = "";
let pool: pg.Pool;
let db: Kysely<DB>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  if (embedded) return;
  databaseUrl = await siblingDatabase(process.env.DATABASE_URL!, "queue_migration");
  pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  setEnv(
    parseEnv({
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "routekit-queue-migration-")),
      AUTH_SECRET: TEST_AUTH_SECRET,
      CALLBACK_ALLOW_PRIVATE: "true",
      LOG_LEVEL: "silent",
    }),
  );
  receiver = await startReceiver();
}, 60_000);
afterAll(async () => {
  if (embedded) return;
  await stopTakingJobs();
  await stopJobQueue();
  await disconnectDb();
  await receiver.close();
  await db.destroy();
  // The database stays until the next run (siblingDatabase drops it first) or CI's cleanup: dropping it here
  // with FORCE would end a connection some pool still holds, and that pool would throw in the test process.
});

describe.skipIf(embedded)(`migration ${QUEUE_MIGRATION}`, () => {
  it("queues every PENDING delivery once: due ones arrive once, scheduled ones wait, finished ones are not sent", async () => {
    // The schema as the previous version left it.
    const before = mkdtempSync(path.join(tmpdir(), "queue-migration-"));
    for (const name of readdirSync(repoMigrations))
      if (name < QUEUE_MIGRATION) cpSync(path.join(repoMigrations, name), path.join(before, name), { recursive: true });
    await applyMigrations(pool, before);

    const account = await db
      .insertInto("Account")
      // The Account of that schema still had its password (users came later, in the teams migration).
      .values({
        email: "upgrade@example.com",
        passwordHash: "x",
        webhookSecretEnc: encryptSecret(generateWebhookSecret()),
        routingTokenHash: `h-${process.pid}`,
      } as never)
      .returning("id")
      .executeTakeFirstOrThrow();
    const ago = (s: number) => new Date(Date.now() - s * 1000);
    const delivery = (name: string, over: { status?: "PENDING" | "DELIVERED" | "FAILED"; next?: Date | null } = {}) => {
      const event = buildEvent("call.ended", {
        callSid: `CA-upgrade-${name}`,
        direction: "inbound",
        from: "+14155550100",
        to: "+14155550123",
        phoneNumberId: null,
        status: "completed",
      });
      return db
        .insertInto("WebhookDelivery")
        .values({
          accountId: account.id,
          eventId: event.id,
          eventType: event.type,
          url: receiver.url(`/upgrade/${name}`),
          payload: JSON.stringify(event),
          status: over.status ?? "PENDING",
          nextAttemptAt: over.next === undefined ? ago(1) : over.next,
          attemptCount: name.startsWith("retry") ? 2 : 0,
          cycleAttempts: name.startsWith("retry") ? 2 : 0,
        })
        .returning(["id", "attemptCount"])
        .executeTakeFirstOrThrow();
    };
    const due = await Promise.all([
      ...Array.from({ length: 40 }, (_, i) => delivery(`first-${i}`)),
      delivery("retry-due", { next: ago(30) }),
      delivery("redelivered", { next: ago(2) }),
    ]);
    const later = await delivery("retry-later", { next: new Date(Date.now() + 3600_000) });
    await delivery("done", { status: "DELIVERED", next: null });
    await delivery("gave-up", { status: "FAILED", next: null });
    await db
      .insertInto("WebhookDelivery")
      .values({
        accountId: account.id,
        eventId: "evt_started",
        eventType: "call.started",
        url: receiver.url("/upgrade/started"),
        payload: "{}",
        synchronous: true,
      })
      .execute();

    // Their jobs, as the previous version queued them: a job per due delivery (two for one of them, a retry's and
    // a redeliver's), and the later retry's, on pg-boss's own API.
    const oldBoss = new PgBoss({ connectionString: databaseUrl, schema: "pgboss" });
    await oldBoss.start();
    await oldBoss.createQueue("webhook-delivery");
    for (const d of [...due, due[0]!, later])
      await oldBoss.send("webhook-delivery", { deliveryId: d.id, expectedAttempt: d.attemptCount });
    await oldBoss.stop({ graceful: false, wait: true });

    // The upgrade: the migration, then this version's queue and worker.
    cpSync(path.join(repoMigrations, QUEUE_MIGRATION), path.join(before, QUEUE_MIGRATION), { recursive: true });
    expect(await applyMigrations(pool, before)).toEqual([QUEUE_MIGRATION]);
    const { rows: lanes } = await sql<{ n: number }>`
      SELECT count(DISTINCT lane)::int AS n FROM "WebhookDelivery" WHERE "runAt" IS NOT NULL`.execute(db);
    expect(lanes[0]!.n).toBe(due.length + 1);
    // This version's worker reads this version's schema: the migrations after the queue's come with the upgrade too.
    for (const name of readdirSync(repoMigrations))
      if (name > QUEUE_MIGRATION) cpSync(path.join(repoMigrations, name), path.join(before, name), { recursive: true });
    await applyMigrations(pool, before);

    setConnectionUrl(databaseUrl);
    configureDeliveryQueue({ name: DELIVERY_QUEUE });
    const boss = await jobQueue();
    // pg-boss's old queue is gone (none of its jobs had started: nothing kept it).
    expect((await boss.getQueues()).map((q) => q.name)).not.toContain("webhook-delivery");
    await startDeliveryWorker();

    await until(() => receiver.received.length >= due.length, "every due delivery", 20_000);
    // A moment more: nothing arrives twice, nothing else arrives.
    await new Promise((r) => setTimeout(r, 1_500));
    const paths = receiver.received.map((r) => r.path).sort();
    expect(paths).toEqual(
      [...Array.from({ length: 40 }, (_, i) => `first-${i}`), "retry-due", "redelivered"]
        .map((n) => `/upgrade/${n}`)
        .sort(),
    );
    const states = await db
      .selectFrom("WebhookDelivery")
      .select(["url", "status", "runAt", "attemptCount"])
      .where("accountId", "=", account.id)
      .execute();
    const byName = new Map(states.map((s) => [new URL(s.url).pathname.replace("/upgrade/", ""), s]));
    // Each due one delivered with one attempt more, and off the queue.
    for (const name of [...Array.from({ length: 40 }, (_, i) => `first-${i}`), "redelivered"])
      expect(byName.get(name), name).toMatchObject({ status: "DELIVERED", attemptCount: 1, runAt: null });
    expect(byName.get("retry-due")).toMatchObject({ status: "DELIVERED", attemptCount: 3, runAt: null });
    expect(byName.get("retry-later")).toMatchObject({ status: "PENDING", attemptCount: 2 });
    expect(byName.get("retry-later")!.runAt!.getTime()).toBeGreaterThan(Date.now() + 3000_000);
    expect(byName.get("started")!.runAt).toBeNull();
    expect(byName.get("done")).toMatchObject({ status: "DELIVERED", runAt: null });
    expect(byName.get("gave-up")).toMatchObject({ status: "FAILED", runAt: null });
  }, 90_000);
});
