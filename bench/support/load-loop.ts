import http from "node:http";

/** One request of a load: `i` counts every request sent in the loop, from 0. */
export type LoadRequest = { method: "GET" | "POST"; path: string; headers?: Record<string, string>; body?: string };

export type LoadResult = {
  /** Requests answered within the measured window. */
  requests: number;
  /** Answers per second over the window. */
  rps: number;
  /** Latency of each counted answer, ms, send to last byte. */
  ms: number[];
  statuses: Record<number, number>;
  /** Counted answers whose body failed `expect` (say, the engine's fallback instead of the customer's TwiML). */
  unexpected: number;
  errors: number;
};

type LoopOptions = {
  /** Base URL: http://host:port. */
  url: string;
  request: (i: number) => LoadRequest;
  /** A 2xx body must contain this to count as expected. */
  expect?: string;
  seconds: number;
};

/**
 * One request on `agent` (one keep-alive socket), resolving when the whole
 * answer is in. Same client for every target, so its cost cancels in ratios.
 */
function send(base: URL, agent: http.Agent, r: LoadRequest): Promise<{ ms: number; status: number; body: string }> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...r.headers };
    if (r.body !== undefined) headers["content-length"] = Buffer.byteLength(r.body);
    const started = performance.now();
    const req = http.request(
      { host: base.hostname, port: base.port, path: r.path, method: r.method, agent, headers },
      (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0, body }));
        res.on("error", () => resolve({ ms: performance.now() - started, status: 0, body: "" }));
      },
    );
    req.on("error", () => resolve({ ms: performance.now() - started, status: 0, body: "" }));
    req.end(r.body);
  });
}

function collector(expect: string | undefined) {
  const result: LoadResult = { requests: 0, rps: 0, ms: [], statuses: {}, unexpected: 0, errors: 0 };
  const add = (a: { ms: number; status: number; body: string }) => {
    result.requests++;
    result.statuses[a.status] = (result.statuses[a.status] ?? 0) + 1;
    if (a.status === 0) result.errors++;
    else if (a.status >= 200 && a.status < 300) {
      if (expect && !a.body.includes(expect)) result.unexpected++;
      else result.ms.push(a.ms);
    }
  };
  return { result, add };
}

/**
 * A closed loop of `connections` keep-alive connections, each sending its next
 * request as soon as the last is answered: the most a target does at that concurrency.
 */
export async function closedLoad(opts: LoopOptions & { connections: number }): Promise<LoadResult> {
  const base = new URL(opts.url);
  const { result, add } = collector(opts.expect);
  let sent = 0;
  const started = performance.now();
  const ends = started + opts.seconds * 1000;
  await Promise.all(
    Array.from({ length: opts.connections }, async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        while (performance.now() < ends) {
          const answer = await send(base, agent, opts.request(sent++));
          if (performance.now() <= ends) add(answer);
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  result.rps = result.requests / opts.seconds;
  return result;
}

/**
 * `rate` requests a second, evenly spaced, over one keep-alive connection: the
 * next leaves at its due time, or when the last is answered if that is later
 * (the target falling behind shows as fewer requests). Closer to calls arriving
 * one by one than a burst at the start of each second.
 */
export async function pacedLoad(opts: LoopOptions & { rate: number }): Promise<LoadResult> {
  const base = new URL(opts.url);
  const { result, add } = collector(opts.expect);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const t0 = performance.now();
  const total = Math.round(opts.rate * opts.seconds);
  try {
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / opts.rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      add(await send(base, agent, opts.request(i)));
    }
  } finally {
    agent.destroy();
  }
  result.rps = result.requests / ((performance.now() - t0) / 1000);
  return result;
}
