import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTracing, stopTracing, tracing, withSpan } from "../../src/server/tracing/tracing";

// OTEL_TRACES_SAMPLER_ARG: the share of the traces Routekit starts that are recorded, by trace id; an
// incoming traceparent's sampled flag wins. Its own file: tracing on is process-wide.
describe("the trace sampler", () => {
  // A collector that takes every export (the spans recorded are not looked at here).
  const collector = createServer((req, res) => req.resume().on("end", () => res.writeHead(200).end("{}")));
  let endpoint = "";
  beforeAll(async () => {
    await new Promise<void>((r) => collector.listen(0, "127.0.0.1", () => r()));
    endpoint = `http://127.0.0.1:${(collector.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await stopTracing();
    await new Promise((r) => collector.close(r));
  });

  it("records about the configured share of new traces, and follows a parent's sampled flag", async () => {
    await startTracing({
      endpoint,
      headers: {},
      serviceName: "routekit-unit",
      sampleRatio: 0.25,
    });
    expect(tracing()).not.toBeNull();
    let recorded = 0;
    for (let i = 0; i < 2_000; i++)
      await withSpan("x", {}, async (span) => {
        if (span?.isRecording()) recorded++;
      });
    // 25 % of 2,000 is 500; trace ids are random, so allow for chance (six standard deviations).
    expect(recorded).toBeGreaterThan(380);
    expect(recorded).toBeLessThan(620);
    const parent = (flags: string) => `00-${"ab".repeat(16)}-${"cd".repeat(8)}-${flags}`;
    expect(await withSpan("x", { parent: parent("01") }, async (span) => span?.isRecording())).toBe(true);
    expect(await withSpan("x", { parent: parent("00") }, async (span) => span?.isRecording())).toBe(false);
  });
});
