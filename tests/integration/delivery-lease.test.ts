// A live attempt slower than the job's lease is never run twice: the worker
// renews the lease while the attempt runs. The lease here is 2 s and the
// receiver takes 5 s, with a second instance waiting to pick up expired jobs.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { db } from "../../src/server/db/client";
import { transactionWithEvents } from "../../src/server/webhooks/enqueue-event";
import { buildEvent } from "../../src/server/webhooks/event-envelope";
import { newActiveAccount } from "../support/api";
import { startInProcess } from "../support/in-process";
import { startReceiver } from "../support/receiver";

const LEASE = { deliveryLeaseSeconds: 2, maintenanceIntervalSeconds: 1 };
let inProcess: Awaited<ReturnType<typeof startInProcess>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  inProcess = await startInProcess(LEASE);
  receiver = await startReceiver((_r, res) => void setTimeout(() => res.end("ok"), 5_000));
});
afterAll(async () => {
  for (const w of workers) w.kill("SIGKILL");
  await receiver.close();
  await inProcess.stop();
});

function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/support/delivery-worker-process.ts"], {
    env: {
      ...process.env,
      WORKER_DATABASE_URL: inject("permissiveDatabaseUrl"),
      WORKER_SCHEMA: inProcess.schema,
      WORKER_LEASE_SECONDS: String(LEASE.deliveryLeaseSeconds),
      WORKER_MAINTENANCE_SECONDS: String(LEASE.maintenanceIntervalSeconds),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  workers.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("worker ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`worker exited early with ${code}`)));
  });
}

describe("lease renewal", () => {
  it("an attempt that outlasts the lease is sent once, with two instances running", async () => {
    await Promise.all([startWorker(), startWorker()]);
    const account = await newActiveAccount({ server: "permissive" });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const event = buildEvent("call.ended", {
        callSid: `CA-lease-${i}`,
        direction: "inbound",
        from: "+14155550100",
        to: "+14155550123",
        phoneNumberId: null,
      });
      ids.push(event.id);
      await transactionWithEvents((_tx, emit) => emit({ accountId: account.id, url: receiver.url("/slow"), event }));
    }
    const deadline = Date.now() + 30_000;
    let delivered = 0;
    while (delivered < ids.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      delivered = await db().webhookDelivery.count({ where: { accountId: account.id, status: "DELIVERED" } });
    }
    expect(delivered).toBe(ids.length);
    // Well past two more leases and maintenance runs: an expired job would have been sent again by now.
    await new Promise((r) => setTimeout(r, 6_000));
    expect(receiver.received.map((r) => String(r.headers["webhook-id"])).sort()).toEqual([...ids].sort());
    const attempts = await db().webhookAttempt.count({ where: { delivery: { accountId: account.id } } });
    expect(attempts).toBe(ids.length);
  }, 60_000);
});
