import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { db } from "../../src/server/db/client";
import { transactionWithEvents } from "../../src/server/events/enqueue-event";
import { buildEvent } from "../../src/server/events/event-envelope";
import { newActiveAccount } from "./support/api";
import { startInProcess } from "./support/in-process";
import { startReceiver } from "./support/receiver";

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

function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/integration/support/delivery-worker-process.ts"], {
    env: { ...process.env, WORKER_DATABASE_URL: inject("permissiveDatabaseUrl"), WORKER_SCHEMA: inProcess.schema, WORKER_LEASE_SECONDS: "2", WORKER_MAINTENANCE_SECONDS: "1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  workers.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("worker ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`worker exited early with ${code}`)));
  });
}

async function until(probe: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("crash safety", () => {
  it("every enqueued event arrives after the worker is killed with SIGKILL and restarted", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const eventIds: string[] = [];
    for (let i = 0; i < 40; i++) {
      const event = buildEvent("call.ended", { callSid: `CA-crash-${i}`, direction: "inbound", from: "+14155550100", to: "+14155550123", phoneNumberId: null });
      eventIds.push(event.id);
      await transactionWithEvents((_tx, emit) => emit({ accountId: account.id, url: receiver.url("/crash"), event }));
    }

    const first = await startWorker();
    await until(() => receiver.received.length >= 5 && held > 0, 20_000, "the first deliveries and some in flight");
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    const beforeRestart = receiver.uniqueIds().size;
    expect(held).toBeGreaterThan(0);
    holding = false;

    await startWorker();
    await until(() => receiver.uniqueIds().size === 40, 60_000, "all 40 events");
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
    console.log(`crash test: ${beforeRestart} events seen before the kill (${held} cut off in flight), ${receiver.received.length} requests for 40 events`);
  }, 120_000);
});
