// What checking the customer's TwiML costs the engine per call: the saxes-based check of a typical
// answer (a Gather menu, ~250 bytes) and of a large one (~8 KiB), each median and p99 over many runs,
// against a budget of well under 1 ms per call.
//   npx tsx bench/twiml-check.ts [runs=20000]
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { checkResponseDocument } from "../src/server/services/answers/check-twiml";

const runs = Number(process.argv[2] ?? 20_000);
const typical =
  '<?xml version="1.0" encoding="UTF-8"?><Response><Gather action="https://api.example.com/menu" method="POST" numDigits="1">' +
  '<Say>Press 1 for sales.</Say><Pause length="1"/><Say>Press 2 for support.</Say></Gather><Say>Goodbye &amp; thanks</Say><Hangup/></Response>';
const large = `<Response>${'<Say voice="alice">Your order number 12345 has shipped and will arrive tomorrow.</Say>'.repeat(100)}</Response>`;

function measure(label: string, xml: string): void {
  for (let k = 0; k < 2000; k++) checkResponseDocument(xml); // warm-up: the engine is a long-lived process
  const ms: number[] = [];
  for (let k = 0; k < runs; k++) {
    const started = performance.now();
    if (!checkResponseDocument(xml).ok) throw new Error(`${label} was refused`);
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(4);
  console.log(`${label} (${Buffer.byteLength(xml)} bytes): median ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`);
}

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}, ${runs} runs each`,
);
measure("typical answer", typical);
measure("large answer", large);
