import http from "node:http";
import { latencyStats } from "./api-bench";

export type LoopResult = {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  statuses: Record<number, number>;
  ms: number[];
};

/**
 * A closed loop of `connections` keep-alive connections, each sending its next
 * request as soon as the last one is answered: throughput at a fixed
 * concurrency, and each request's latency. `headersOf(i)` picks the headers of
 * the i-th request (say, which account's key).
 */
export async function closedLoop(opts: {
  url: string;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  headersOf?: (i: number) => Record<string, string>;
}): Promise<LoopResult> {
  const target = new URL(opts.url);
  const ms: number[] = [];
  const statuses: Record<number, number> = {};
  let sent = 0;
  const warmEnds = performance.now() + opts.warmupSeconds * 1000;
  const ends = warmEnds + opts.seconds * 1000;

  const one = (agent: http.Agent): Promise<void> =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const headers = opts.headersOf?.(sent++) ?? {};
      http
        .get(
          { host: target.hostname, port: target.port, path: target.pathname + target.search, agent, headers },
          (res) => {
            res.resume();
            res.on("end", () => {
              const done = performance.now();
              if (started >= warmEnds && done <= ends) {
                ms.push(done - started);
                statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
              }
              resolve();
            });
          },
        )
        .on("error", reject);
    });

  await Promise.all(
    Array.from({ length: opts.connections }, async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        while (performance.now() < ends) await one(agent);
      } finally {
        agent.destroy();
      }
    }),
  );
  const s = latencyStats(ms);
  return { requests: s.n, rps: Math.round(s.n / opts.seconds), p50: s.p50, p99: s.p99, statuses, ms };
}
