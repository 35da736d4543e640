// Delivery throughput and enqueue-to-delivery latency of one instance, to a
// local receiver that answers at once.
//   npx tsx bench/webhook-delivery.ts [events=20000] [ratePerSecond=0] [accounts=20] [destinations=1] [hanging=0]
// rate 0 (saturation): the events are queued first, with no worker running,
// then one instance's worker drains the backlog; the rate is the worker's
// alone, not bounded by how fast this process can enqueue.
// A rate paces the enqueues with the worker running, to measure latency on an
// instance keeping up. Events are spread over `accounts` customers (one
// customer has at most 10 attempts in flight per instance).
// destinations > 1: each account also has destinations − 1 webhook endpoints subscribed to the event
// (docs/decisions.md §15), so each event is delivered that many times, with one id. `hanging` of those
// endpoints never answer (each attempt waits out its timeout, then backs off): deliveries/s and latency
// are then of the healthy destinations, to show that one hanging destination does not hold up the others.
// Uses DATABASE_URL when set (use a scratch database), else an embedded one in a temp dir.
import { spawn } from "node:child_process";
import os from "node:os";
import { bootDeliveryBench } from "./support/in-process-delivery";

const {
  booted,
  register,
  startDeliveryWorker,
  transactionWithEvents,
  buildEvent,
  jobQueue,
  stopJobQueue,
  createWebhookEndpoint,
} = await bootDeliveryBench();

const total = Number(process.argv[2] ?? 20000);
const rate = Number(process.argv[3] ?? 0);
const accountCount = Number(process.argv[4] ?? 20);
const destinations = Number(process.argv[5] ?? 1);
const hanging = Number(process.argv[6] ?? 0);
if (!(destinations >= 1 && hanging >= 0 && hanging < destinations))
  throw new Error("need 1 <= destinations, 0 <= hanging < destinations");
/** Deliveries expected at healthy destinations: the run ends when all have arrived. */
const expected = total * (destinations - hanging);
await jobQueue();

const latencies: number[] = [];
let received = 0;
let resolveDone: () => void;
const done = new Promise<void>((r) => (resolveDone = r));
const enqueuedAt = new Map<string, number>();
/** "path id" of each delivery received, so a retried delivery counts once. */
const seen = new Set<string>();
// The receiver is the customer's server, not part of the instance: it runs in a process of its
// own, answering at once and reporting each webhook-id on a line, so the instance's event loop
// is measured alone.
const RECEIVER = `
const s = require("node:http").createServer((q, r) => {
  const id = q.headers["webhook-id"];
  q.resume();
  if (q.url.startsWith("/hang")) return; // a destination that never answers
  q.on("end", () => { r.end(); process.stdout.write(q.url + " " + id + "\\n"); });
});
s.keepAliveTimeout = 30000;
s.listen(0, "127.0.0.1", () => process.stdout.write("PORT " + s.address().port + "\\n"));`;
const receiver = spawn(process.execPath, ["-e", RECEIVER], { stdio: ["ignore", "pipe", "inherit"] });
const port = await new Promise<number>((resolve) => {
  let buffered = "";
  receiver.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.startsWith("PORT ")) resolve(Number(line.slice(5)));
      const t = enqueuedAt.get(line.slice(line.indexOf(" ") + 1));
      if (t !== undefined && !seen.has(line)) {
        seen.add(line);
        latencies.push(performance.now() - t);
        if (++received === expected) resolveDone();
      }
    }
  });
});

const accounts = await Promise.all(Array.from({ length: accountCount }, (_, i) => register(String(i))));
for (const account of accounts)
  for (let d = 1; d < destinations; d++)
    await createWebhookEndpoint({
      accountId: account.id,
      input: {
        url: `http://127.0.0.1:${port}/${d <= hanging ? "hang" : "endpoint"}-${d}`,
        eventTypes: ["call.ended"],
      },
      origin: { actor: { type: "system" }, ip: null },
    });

async function enqueue(i: number): Promise<void> {
  const event = buildEvent("call.ended", {
    callSid: `CA${i}`,
    direction: "inbound",
    from: "+14155550100",
    to: "+14155550123",
    phoneNumberId: null,
    durationSeconds: 61,
    billedMinutes: 2,
  });
  const account = accounts[i % accounts.length]!;
  await transactionWithEvents(async (_tx, emit) => {
    await emit({ accountId: account.id, url: `http://127.0.0.1:${port}/hook`, event });
  });
  enqueuedAt.set(event.id, performance.now());
}

async function enqueueAll(concurrency: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        if (rate > 0) {
          const wait = started + (i * 1000) / rate - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
        await enqueue(i);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

let enqueueSeconds: number;
let started: number;
if (rate > 0) {
  await startDeliveryWorker();
  started = performance.now();
  enqueueSeconds = await enqueueAll(4);
} else {
  enqueueSeconds = await enqueueAll(20);
  // Latency in this mode is time in the backlog; measured from when the worker starts.
  started = performance.now();
  for (const id of enqueuedAt.keys()) enqueuedAt.set(id, started);
  await startDeliveryWorker();
}
await done;
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(0);
console.log(
  JSON.stringify({
    database: booted.embedded ? "embedded (PGlite)" : "PostgreSQL",
    events: total,
    accounts: accountCount,
    destinations: hanging ? `${destinations} per event, ${hanging} of them hanging` : `${destinations} per event`,
    healthyDeliveries: expected,
    mode: rate > 0 ? `paced at ${rate}/s` : "saturation (backlog drained by one instance)",
    enqueuePerSecond: Math.round(total / enqueueSeconds),
    deliveredPerSecond: Math.round(expected / seconds),
    latencyMs: rate > 0 ? { p50: pct(50), p95: pct(95), p99: pct(99) } : undefined,
    loadAverage: os.loadavg()[0]!.toFixed(2),
  }),
);
receiver.kill();
await stopJobQueue();
await booted.shutdown();
process.exit(0);
