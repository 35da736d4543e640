/**
 * A customer backend that misbehaves on purpose, to watch Routekit's answer flow (docs/decisions.md
 * §12) without writing one: it answers `call.started` by hanging, with a 500, with a document that is
 * not TwiML, slowly, or after resetting the first connection, as a backend in the middle of a deploy
 * does. Used by `cli.ts backend` and by the integration tests, and records what it received.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

const BACKEND_MODES = ["ok", "hang", "500", "invalid-xml", "slow", "reset-first"] as const;
export type BackendMode = (typeof BACKEND_MODES)[number];

export const BACKEND_OK_TWIML =
  '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Hello from the backend</Say></Response>';

type BackendRequest = { path: string; headers: IncomingMessage["headers"]; body: string; at: number };

export type CustomerBackend = {
  url: (path?: string) => string;
  port: number;
  received: BackendRequest[];
  /** Connections reset on purpose (reset-first). */
  resets: number;
  setMode: (mode: BackendMode, opts?: { delayMs?: number; twiml?: string }) => void;
  close: () => Promise<void>;
};

/**
 * - `ok`: 200 with a TwiML document (`twiml`, default a short <Say>);
 * - `hang`: reads the request and never answers (Routekit's timeout decides);
 * - `500`: HTTP 500;
 * - `invalid-xml`: 200 `application/xml` with a document that is not well-formed;
 * - `slow`: the `ok` answer after `delayMs` (default 3000);
 * - `reset-first`: resets the first connection before any answer, then as `ok`.
 */
export async function startCustomerBackend(
  opts: { mode?: BackendMode; delayMs?: number; twiml?: string; port?: number; host?: string } = {},
): Promise<CustomerBackend> {
  let mode: BackendMode = opts.mode ?? "ok";
  let delayMs = opts.delayMs ?? 3000;
  let twiml = opts.twiml ?? BACKEND_OK_TWIML;
  let resetNext = mode === "reset-first";
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const backend: CustomerBackend = {
    url: () => "",
    port: 0,
    received: [],
    resets: 0,
    setMode(next, o = {}) {
      mode = next;
      if (o.delayMs !== undefined) delayMs = o.delayMs;
      if (o.twiml !== undefined) twiml = o.twiml;
      resetNext = next === "reset-first";
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const answer = (res: ServerResponse) => {
    switch (mode) {
      case "hang":
        return;
      case "500":
        res.writeHead(500, { "content-type": "text/plain" }).end("Internal Server Error");
        return;
      case "invalid-xml":
        res.writeHead(200, { "content-type": "application/xml" }).end("<Response><Say>unclosed</Response>");
        return;
      case "slow": {
        const t = setTimeout(() => {
          timers.delete(t);
          res.writeHead(200, { "content-type": "application/xml" }).end(twiml);
        }, delayMs);
        timers.add(t);
        return;
      }
      default:
        res.writeHead(200, { "content-type": "application/xml" }).end(twiml);
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      backend.received.push({
        path: req.url ?? "/",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      });
      answer(res);
    });
  });
  server.on("connection", (socket: Socket) => {
    if (resetNext) {
      resetNext = false;
      backend.resets++;
      // A TCP reset before any byte of an answer: what a backend restarting under a deploy gives.
      socket.resetAndDestroy();
      return;
    }
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, host, () => resolve()));
  const address = server.address();
  backend.port = typeof address === "object" && address ? address.port : 0;
  backend.url = (path = "/start") => `http://${host}:${backend.port}${path}`;
  return backend;
}

export const BACKEND_HELP = `backend  Runs a customer backend that misbehaves on purpose, to point a number's onCallStartUrl
         (or its fallback URL) at and hear what the caller gets (docs/decisions.md §12).
  --mode <mode>            ${BACKEND_MODES.join(" | ")} (default hang)
  --delay <ms>             how long "slow" waits before answering (default 3000)
  --port <n>               port to listen on (default 3002; 0 = any free port)
  --host <addr>            address to bind (default 127.0.0.1)`;

/** `cli.ts backend …`: runs until a signal, printing each request it gets. */
export async function backendCommand(args: { mode?: string; delay?: string; port?: string; host?: string }) {
  const mode = (args.mode ?? "hang") as BackendMode;
  if (!BACKEND_MODES.includes(mode)) throw new RangeError(`--mode must be one of ${BACKEND_MODES.join(", ")}`);
  const num = (name: string, v: string | undefined, d: number) => {
    if (v === undefined) return d;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`--${name} must be a whole number ≥ 0, got "${v}"`);
    return n;
  };
  const backend = await startCustomerBackend({
    mode,
    delayMs: num("delay", args.delay, 3000),
    port: num("port", args.port, 3002),
    host: args.host ?? "127.0.0.1",
  });
  console.log(`Customer backend (${mode}) listening on ${backend.url("/")}`);
  let seen = 0;
  setInterval(() => {
    for (; seen < backend.received.length; seen++) {
      const r = backend.received[seen]!;
      console.log(`${new Date(r.at).toISOString()} POST ${r.path} webhook-id=${String(r.headers["webhook-id"])}`);
    }
  }, 200);
}
