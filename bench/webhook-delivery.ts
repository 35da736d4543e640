// Delivery throughput and enqueue-to-delivery latency of one instance, to a
// local receiver that answers at once.
//   npx tsx bench/webhook-delivery.ts [events=2000] [ratePerSecond=0]
// rate 0 enqueues as fast as 20 concurrent transactions can (saturation);
// a rate paces the enqueues to measure latency on an instance keeping up.
// Uses DATABASE_URL when set (use a scratch database), else an embedded one in a temp dir.
import { createServer } from "node:http";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

process.env.DATA_DIR ??= mkdtempSync(path.join(tmpdir(), "routekit-bench-"));
process.env.CALLBACK_ALLOW_PRIVATE = "true";
process.env.LOG_LEVEL = "warn";
Object.assign(process.env, { NODE_ENV: "development" });

const { boot } = await import("../src/server/boot");
const { registerAccount } = await import("../src/server/services/accounts/register-account");
const { startDeliveryWorker } = await import("../src/server/events/delivery-worker");
const { transactionWithEvents } = await import("../src/server/events/enqueue-event");
const { buildEvent } = await import("../src/server/events/event-envelope");
const { stopJobQueue } = await import("../src/server/jobs/job-queue");

const total = Number(process.argv[2] ?? 2000);
const rate = Number(process.argv[3] ?? 0);
const concurrency = rate > 0 ? 1 : 20;
const booted = await boot();

const latencies: number[] = [];
let received = 0;
let resolveDone: () => void;
const done = new Promise<void>((r) => (resolveDone = r));
const enqueuedAt = new Map<string, number>();
const receiver = createServer((req, res) => {
  const id = String(req.headers["webhook-id"]);
  req.resume();
  req.on("end", () => {
    res.end();
    const t = enqueuedAt.get(id);
    if (t !== undefined) {
      enqueuedAt.delete(id);
      latencies.push(performance.now() - t);
      if (++received === total) resolveDone();
    }
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
const port = (receiver.address() as { port: number }).port;

const { account } = await registerAccount({ email: `bench-${Date.now()}@example.com`, password: "benchmark-password" });
await startDeliveryWorker();

const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < total) {
      const i = next++;
      if (rate > 0) {
        const due = started + (i * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      const event = buildEvent("call.ended", { callSid: `CA${i}`, direction: "inbound", from: "+14155550100", to: "+14155550123", phoneNumberId: null, durationSeconds: 61, billedMinutes: 2 });
      await transactionWithEvents(async (_tx, emit) => {
        await emit({ accountId: account.id, url: `http://127.0.0.1:${port}/hook`, event });
      });
      enqueuedAt.set(event.id, performance.now());
    }
  }),
);
const enqueueSeconds = (performance.now() - started) / 1000;
await done;
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(0);
console.log(
  JSON.stringify({
    database: booted.embedded ? "embedded (PGlite)" : "PostgreSQL",
    events: total,
    mode: rate > 0 ? `paced at ${rate}/s` : "saturation",
    enqueuePerSecond: Math.round(total / enqueueSeconds),
    deliveredPerSecond: Math.round(total / seconds),
    latencyMs: { p50: pct(50), p95: pct(95), p99: pct(99) },
  }),
);
receiver.close();
await stopJobQueue();
await booted.shutdown();
process.exit(0);
