import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../src/server/db/client";
import { transactionWithEvents } from "../../src/server/webhooks/enqueue-event";
import { buildEvent } from "../../src/server/webhooks/event-envelope";
import { newActiveAccount } from "../support/api";
import { startInProcess } from "../support/in-process";
import { startReceiver } from "../support/receiver";
import { until } from "../support/until";
import { startWorkerProcess } from "../support/delivery-worker";

let inProcess: Awaited<ReturnType<typeof startInProcess>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const workers: ChildProcess[] = [];
let holding = true;
let held = 0;

beforeAll(async () => {
  // The queue is created here first, so its lease is set here: short, so a killed worker's jobs return fast.
  inProcess = await startInProcess({ deliveryLeaseSeconds: 2, maintenanceIntervalSeconds: 1 });
  // The first five are answered; after that the receiver holds requests
  // unanswered until the kill, so the kill certainly cuts attempts off mid-flight.
  receiver = await startReceiver((_r, res) => {
    if (receiver.received.length <= 5 || !holding) res.end("ok");
    else held++;
  });
});
afterAll(async () => {
  for (const w of workers) w.kill("SIGKILL");
  await receiver.close();
  await inProcess.stop();
});

describe("crash safety", () => {
  it("every enqueued event arrives after the worker is killed with SIGKILL and restarted", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const eventIds: string[] = [];
    for (let i = 0; i < 40; i++) {
      const event = buildEvent("call.ended", {
        callSid: `CA-crash-${i}`,
        direction: "inbound",
        from: "+14155550100",
        to: "+14155550123",
        phoneNumberId: null,
      });
      eventIds.push(event.id);
      await transactionWithEvents((_tx, emit) => emit({ accountId: account.id, url: receiver.url("/crash"), event }));
    }

    const first = await startWorkerProcess(inProcess.schema, workers, {
      WORKER_LEASE_SECONDS: "2",
      WORKER_MAINTENANCE_SECONDS: "1",
    });
    await until(() => receiver.received.length >= 5 && held > 0, "the first deliveries and some in flight", 20_000);
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    const beforeRestart = receiver.uniqueIds().size;
    expect(held).toBeGreaterThan(0);
    holding = false;

    await startWorkerProcess(inProcess.schema, workers, { WORKER_LEASE_SECONDS: "2", WORKER_MAINTENANCE_SECONDS: "1" });
    await until(() => receiver.uniqueIds().size === 40, "all 40 events", 60_000);
    expect([...receiver.uniqueIds()].sort()).toEqual([...eventIds].sort());
    // The log agrees: every delivery ends DELIVERED.
    const deadline = Date.now() + 30_000;
    let delivered = 0;
    while (delivered < 40 && Date.now() < deadline) {
      delivered = await db().webhookDelivery.count({ where: { accountId: account.id, status: "DELIVERED" } });
      if (delivered < 40) await new Promise((r) => setTimeout(r, 100));
    }
    expect(delivered).toBe(40);
    // Attempts cut short by the kill are sent again (at least once); the receiver deduplicates by webhook-id.
    expect(receiver.received.length).toBeGreaterThanOrEqual(40);
    console.log(
      `crash test: ${beforeRestart} events seen before the kill (${held} cut off in flight), ${receiver.received.length} requests for 40 events`,
    );
  }, 120_000);
});
