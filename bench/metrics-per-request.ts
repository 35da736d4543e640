// What the metrics a voice request records cost, in-process (robust on a noisy host: CPU only, no I/O).
//   npx tsx bench/metrics-per-request.ts [iterations=200000]
// One voice request records: its HTTP request (counter with route/method/status, duration histogram),
// the engine's answer form (counter), its own overhead (histogram) and the backend's answer time
// (histogram by role): metrics/metrics.ts's own metrics, through its real registry.
import { cpuUsage } from "node:process";
import { metrics } from "../src/server/metrics/metrics";

const n = Number(process.argv[2] ?? 200_000);
const m = metrics();
const once = (i: number) => {
  m.httpRequests.inc({ route: "engine.voice", method: "POST", status: 200 });
  m.httpDuration.observe({ route: "engine.voice" }, 0.004 + (i % 7) / 1000);
  m.engineAnswers.inc({ form: "xml" });
  m.engineOverhead.observe(0.002 + (i % 5) / 1000);
  m.backendAnswer.observe({ role: "primary" }, 0.001 + (i % 3) / 1000);
};
for (let i = 0; i < 20_000; i++) once(i); // warm-up
const t0 = cpuUsage();
for (let i = 0; i < n; i++) once(i);
const used = cpuUsage(t0);
const usPerRequest = (used.user + used.system) / n;
console.log(
  JSON.stringify({
    bench: "metrics-per-request",
    iterations: n,
    cpuMicrosecondsPerVoiceRequest: Math.round(usPerRequest * 100) / 100,
  }),
);
