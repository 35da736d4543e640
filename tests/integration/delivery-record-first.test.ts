// Issue 23, item 6: a 2xx is recorded before anything else, so an instance
// that dies right after the answer does not send the event again. The worker
// runs in a process of its own whose database connections pass through a
// proxy that reads the wire protocol: the test sees, in order, every statement
// the worker sends after the receiver's answer, and kills the worker with
// SIGKILL at the exact moment the first of them has been answered.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { db } from "../../src/server/db/client";
import { transactionWithEvents } from "../../src/server/webhooks/enqueue-event";
import { buildEvent } from "../../src/server/webhooks/event-envelope";
import { newActiveAccount, sql } from "../support/api";
import { startInProcess } from "../support/in-process";
import { startPgProxy } from "../support/pg-proxy";
import { startReceiver } from "../support/receiver";
import { until } from "../support/until";
import { startWorkerProcess } from "../support/delivery-worker";

const embedded = inject("embedded");
let inProcess: Awaited<ReturnType<typeof startInProcess>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let proxy: Awaited<ReturnType<typeof startPgProxy>>;
const workers: ChildProcess[] = [];
let answeredAt = 0;
let answers = 0;

beforeAll(async () => {
  if (embedded) return;
  inProcess = await startInProcess({ deliveryLeaseSeconds: 2, maintenanceIntervalSeconds: 1 });
  receiver = await startReceiver((_r, res) => {
    answeredAt = Date.now();
    answers++;
    res.end("ok");
  });
  const url = new URL(inject("permissiveDatabaseUrl"));
  proxy = await startPgProxy({ host: url.hostname, port: Number(url.port || 5432) });
});
afterAll(async () => {
  if (embedded) return;
  for (const w of workers) w.kill("SIGKILL");
  await receiver.close();
  await proxy.close();
  await inProcess.stop();
});

const TOUCHES_DELIVERIES = /"Webhook(Attempt|Delivery|EndpointHealth)"/;
/** The queue's own statements on the delivery rows: a claim, and a lease's renewal (jobs/delivery-queue/). */
const QUEUE_BOOKKEEPING = /with recursive lanes|set "runAt" = now\(\) \+ make_interval/i;

describe.skipIf(embedded)("a 2xx is recorded first", () => {
  it("the attempt is the first statement after the answer: killed right after it, the worker never sends the event again", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const url = receiver.url("/record-first");
    // An endpoint with failures on record (not backed off): a success has its health to reset too,
    // which must wait until the attempt is recorded.
    await db().webhookEndpointHealth.create({
      data: { accountId: account.id, url, consecutiveFailures: 2, lastFailureAt: new Date() },
    });
    const event = buildEvent("call.ended", {
      callSid: "CA-record-first",
      direction: "inbound",
      from: "+14155550100",
      to: "+14155550123",
      phoneNumberId: null,
      status: "completed",
    });
    const deliveryId = await transactionWithEvents((_tx, emit) => emit({ accountId: account.id, url, event }));

    const proxied = new URL(inject("permissiveDatabaseUrl"));
    proxied.hostname = "127.0.0.1";
    proxied.port = String(proxy.port);
    const first = await startWorkerProcess(inProcess.schema, workers, {
      WORKER_DATABASE_URL: proxied.toString(),
      WORKER_LEASE_SECONDS: "2",
      WORKER_MAINTENANCE_SECONDS: "1",
    });
    const exited = new Promise((r) => first.once("exit", r));
    let firstAfter: string | null = null;
    proxy.watch((s) => {
      if (!answeredAt || firstAfter !== null || !TOUCHES_DELIVERIES.test(s.sql) || QUEUE_BOOKKEEPING.test(s.sql))
        return;
      firstAfter = s.sql;
      // Killed once the database has answered that statement, before the worker hears it.
      s.answered = () => first.kill("SIGKILL");
    });
    await exited;
    proxy.watch(null);
    expect(receiver.received).toHaveLength(1);
    expect(firstAfter).toMatch(/insert into "WebhookAttempt"/);

    // The record took the delivery off the queue with it: another worker, running past the killed one's
    // lease, finds nothing of it to send.
    await startWorkerProcess(inProcess.schema, workers, { WORKER_LEASE_SECONDS: "2", WORKER_MAINTENANCE_SECONDS: "1" });
    await new Promise((r) => setTimeout(r, 4_000));
    const queued = await sql("permissive").query(`SELECT "runAt" FROM "WebhookDelivery" WHERE id = $1`, [deliveryId]);
    expect(queued.rows[0].runAt).toBeNull();
    const delivery = await db().webhookDelivery.findUniqueOrThrow({
      where: { id: deliveryId },
      include: { attempts: true },
    });
    expect(delivery.status).toBe("DELIVERED");
    expect(delivery.attempts.map((a) => a.statusCode)).toEqual([200]);
    expect(receiver.received).toHaveLength(1);
  }, 60_000);

  it("a connection lost at the record is tried again: the 2xx is recorded once and the event is not sent again", async () => {
    // Only the worker behind the proxy runs this one.
    await Promise.all(
      workers
        .filter((w) => w.exitCode === null && w.signalCode === null)
        .map((w) => new Promise((r) => w.once("exit", r).kill("SIGKILL"))),
    );
    const account = await newActiveAccount({ server: "permissive" });
    const url = receiver.url("/record-retried");
    const event = buildEvent("call.ended", {
      callSid: "CA-record-retried",
      direction: "inbound",
      from: "+14155550100",
      to: "+14155550123",
      phoneNumberId: null,
      status: "completed",
    });
    const deliveryId = await transactionWithEvents((_tx, emit) => emit({ accountId: account.id, url, event }));
    answeredAt = 0;
    answers = 0;
    let dropped = 0;
    proxy.watch((s) => {
      // The first try of the record never reaches the database: its connection is cut as it is sent.
      if (answeredAt && !dropped && /insert into "WebhookAttempt"/.test(s.sql)) {
        dropped++;
        s.drop = true;
      }
    });
    const proxied = new URL(inject("permissiveDatabaseUrl"));
    proxied.hostname = "127.0.0.1";
    proxied.port = String(proxy.port);
    await startWorkerProcess(inProcess.schema, workers, {
      WORKER_DATABASE_URL: proxied.toString(),
      WORKER_LEASE_SECONDS: "2",
      WORKER_MAINTENANCE_SECONDS: "1",
    });
    await until(
      async () => (await db().webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } })).status === "DELIVERED",
      "the delivery to be recorded",
      15_000,
    );
    expect(dropped).toBe(1);
    // Well past pg-boss's own retry of a failed job (1-2 s): nothing was sent again.
    await new Promise((r) => setTimeout(r, 4_000));
    proxy.watch(null);
    expect(answers).toBe(1);
    const delivery = await db().webhookDelivery.findUniqueOrThrow({
      where: { id: deliveryId },
      include: { attempts: true },
    });
    expect(delivery.attempts.map((a) => a.statusCode)).toEqual([200]);
  }, 60_000);
});
