// A healthy customer's enqueue-to-delivery latency on one instance while other
// customers' endpoints hang (accept the request, never answer).
//   npx tsx bench/noisy-neighbour.ts [seconds=60] [hangingCustomers=3] [hangingRate=3] [healthyRate=10]
// Each hanging customer sends `hangingRate` events/s, the healthy one `healthyRate`/s.
// Uses DATABASE_URL when set (use a scratch database), else an embedded one in a temp dir.
import { createServer } from "node:http";
import { bootDeliveryBench } from "./support/in-process-delivery";

const { booted, register, startDeliveryWorker, transactionWithEvents, buildEvent, jobQueue, stopJobQueue, kysely } =
  await bootDeliveryBench();

const seconds = Number(process.argv[2] ?? 60);
const hangingCount = Number(process.argv[3] ?? 3);
const hangingRate = Number(process.argv[4] ?? 3);
const healthyRate = Number(process.argv[5] ?? 10);

const enqueuedAt = new Map<string, number>();
const latencies: number[] = [];
let hangingRequests = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    if (req.url?.startsWith("/hang")) {
      hangingRequests++;
      return; // never answered: the attempt times out after 10 s
    }
    res.end("ok");
    const t = enqueuedAt.get(String(req.headers["webhook-id"]));
    if (t !== undefined) latencies.push(performance.now() - t);
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
const base = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;

const healthy = await register("healthy");
await jobQueue();
const startedAt = new Date();
let eventsSent = 0;
const hanging = await Promise.all(Array.from({ length: hangingCount }, (_, i) => register(`hanging${i}`)));
await startDeliveryWorker();

let seq = 0;
async function send(accountId: string, url: string, track: boolean): Promise<void> {
  const event = buildEvent("call.ended", {
    callSid: `CA${seq++}`,
    direction: "inbound",
    from: "+14155550100",
    to: "+14155550123",
    phoneNumberId: null,
  });
  const t = performance.now();
  if (track) enqueuedAt.set(event.id, t);
  await transactionWithEvents((_tx, emit) => emit({ accountId, url, event }));
  eventsSent++;
}

function every(perSecond: number, fn: () => Promise<void>): NodeJS.Timeout {
  return setInterval(() => void fn().catch((err: unknown) => console.error(err)), 1000 / perSecond);
}

const timers = [
  ...hanging.map((a, i) => every(hangingRate, () => send(a.id, `${base}/hang/${i}`, false))),
  every(healthyRate, () => send(healthy.id, `${base}/ok`, true)),
];
await new Promise((r) => setTimeout(r, seconds * 1000));
for (const t of timers) clearInterval(t);
await new Promise((r) => setTimeout(r, 2000));

// Queue rows per event (issue #42: a delivery is one row for its whole life; a retry or a put-back moves it).
const made = await kysely()
  .selectFrom("WebhookDelivery")
  .select((eb) => eb.fn.countAll<string>().as("n"))
  .where("createdAt", ">=", startedAt)
  .executeTakeFirstOrThrow();
const rowsPerEvent = Number(made.n) / eventsSent;
latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  Number(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(0));
console.log(
  JSON.stringify({
    database: booted.embedded ? "embedded (PGlite)" : "PostgreSQL",
    seconds,
    hangingCustomers: hangingCount,
    hangingRatePerCustomer: hangingRate,
    hangingRequestsSeen: hangingRequests,
    healthyEvents: enqueuedAt.size,
    healthyDelivered: latencies.length,
    healthyLatencyMs: { p50: pct(50), p95: pct(95), p99: pct(99), max: pct(100) },
    queueRowsPerEvent: Number(rowsPerEvent.toFixed(2)),
  }),
);
receiver.closeAllConnections();
receiver.close();
await stopJobQueue();
await booted.shutdown();
process.exit(0);
