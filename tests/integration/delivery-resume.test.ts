// Decisions §8: an instance that dies mid-attempt has its deliveries resumed by
// another within 30 s. Production lease and maintenance interval (nothing is
// shortened here); the workers are separate processes so one can be killed hard.
import type { ChildProcess } from "node:child_process";
import { createServer as createHttpServer } from "node:http";
import { createServer as createNetServer, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../src/server/db/client";
import { ACCOUNT_IN_FLIGHT_CAP } from "../../src/server/workers/delivery-worker";
import { transactionWithEvents } from "../../src/server/webhooks/enqueue-event";
import { buildEvent } from "../../src/server/webhooks/event-envelope";
import { newActiveAccount } from "../support/api";
import { startInProcess } from "../support/in-process";
import { until } from "../support/until";
import { startWorkerProcess } from "../support/delivery-worker";

let inProcess: Awaited<ReturnType<typeof startInProcess>>;
const workers: ChildProcess[] = [];

// The receiver's port first swallows connections without reading them (the
// requests never reach the receiver), then serves HTTP: what a receiver sees
// when the instance sending to it dies before its requests got through.
let serving = false;
const held = new Set<Socket>();
const received: { id: string; at: number }[] = [];
const http = createHttpServer((req, res) => {
  req.resume();
  req.on("end", () => {
    received.push({ id: String(req.headers["webhook-id"]), at: Date.now() });
    res.end("ok");
  });
});
const front = createNetServer((socket) => {
  socket.on("error", () => undefined);
  if (serving) return http.emit("connection", socket);
  socket.pause();
  held.add(socket);
  socket.on("close", () => held.delete(socket));
});
let url = "";

beforeAll(async () => {
  inProcess = await startInProcess();
  await new Promise<void>((r) => front.listen(0, "127.0.0.1", () => r()));
  url = `http://127.0.0.1:${(front.address() as { port: number }).port}/resume`;
});
afterAll(async () => {
  for (const w of workers) w.kill("SIGKILL");
  for (const s of held) s.destroy();
  http.closeAllConnections();
  await new Promise((r) => front.close(r));
  await inProcess.stop();
});

describe("resume after a crash", () => {
  it("a killed instance's in-flight deliveries are sent by another within 30 s, once each", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const ids: string[] = [];
    // More than the account's cap: some are in flight at the kill, the rest were put back for later.
    for (let i = 0; i < ACCOUNT_IN_FLIGHT_CAP + 5; i++) {
      const event = buildEvent("call.ended", {
        callSid: `CA-resume-${i}`,
        direction: "inbound",
        from: "+14155550100",
        to: "+14155550123",
        phoneNumberId: null,
      });
      ids.push(event.id);
      await transactionWithEvents((_tx, emit) => emit({ accountId: account.id, url, event }));
    }

    const first = await startWorkerProcess(inProcess.schema, workers);
    await until(() => held.size === ACCOUNT_IN_FLIGHT_CAP, "the first instance's attempts in flight", 20_000);
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    const killedAt = Date.now();
    serving = true;

    await startWorkerProcess(inProcess.schema, workers);
    await until(() => new Set(received.map((r) => r.id)).size === ids.length, "every event", 40_000);
    const resumedIn = Math.max(...received.map((r) => r.at)) - killedAt;
    console.log(`resume: all ${ids.length} events delivered ${resumedIn} ms after the kill`);
    expect(resumedIn).toBeLessThan(30_000);

    // None of the first attempts reached the receiver, so each event arrives exactly once and has one attempt.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(received.map((r) => r.id).sort()).toEqual([...ids].sort());
    const rows = await db().webhookDelivery.findMany({ where: { accountId: account.id }, include: { attempts: true } });
    expect(rows.map((r) => [r.status, r.attempts.length])).toEqual(ids.map(() => ["DELIVERED", 1]));
  }, 90_000);
});
