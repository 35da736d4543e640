import WebSocket from "ws";

/**
 * `routekit listen` (docs/decisions.md §19): one outbound WebSocket to Routekit's `GET /api/listen`, no tunnel.
 * Each event arrives with the exact body and headers its URL would have received (signed with the account's
 * secret), is POSTed as it is to `forwardTo`, and the local server's answer (status, content type, body) goes
 * back through the socket: for `call.started` it is the call's answer. Reconnects with backoff.
 */
type ListenOptions = {
  baseUrl: string;
  apiKey: string;
  forwardTo: string;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Aborting it closes the socket and ends the listener. */
  signal?: AbortSignal;
};

type EventMessage = {
  type: "event";
  id: string;
  eventType: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
};
type ServerMessage = { type: "ready"; listenerId: string; accountId: string } | EventMessage;

/** Close codes after which reconnecting cannot help (docs/api.md). */
const FINAL_CLOSES: Record<number, string> = { 4001: "the API key was revoked or has expired" };
const BACKOFF_MS = [500, 1_000, 2_000, 5_000, 10_000, 30_000];
/** Of the local answer, at most this much is sent back (Routekit reads 64 KiB of a call.started answer). */
const MAX_ANSWER_BYTES = 64 * 1024;

/** The socket's address: the service's, on ws(s). */
function listenUrl(baseUrl: string): string {
  const url = new URL("/api/listen", baseUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

/** Runs until the signal aborts (resolves 0) or the service refuses the key for good (resolves 1). */
export function listen(opts: ListenOptions): Promise<number> {
  const { out, err } = opts;
  return new Promise((resolve) => {
    let attempt = 0;
    let done = false;
    let socket: WebSocket | null = null;
    let retry: NodeJS.Timeout | null = null;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      if (retry) clearTimeout(retry);
      socket?.close(1000, "routekit listen stopped");
      resolve(code);
    };
    opts.signal?.addEventListener("abort", () => finish(0), { once: true });

    const again = (why: string) => {
      if (done) return;
      const wait = BACKOFF_MS[Math.min(attempt++, BACKOFF_MS.length - 1)]!;
      err(`${why}; reconnecting in ${wait / 1000}s`);
      retry = setTimeout(connect, wait);
    };

    function connect() {
      if (done) return;
      const ws = new WebSocket(listenUrl(opts.baseUrl), {
        headers: { authorization: `Bearer ${opts.apiKey}` },
        handshakeTimeout: 10_000,
      });
      socket = ws;
      let refused = false;
      ws.on("unexpected-response", (_req, res) => {
        refused = true;
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => {
          let message = text;
          try {
            const parsed = JSON.parse(text) as { error?: { code?: string; message?: string } };
            if (parsed.error) message = `${parsed.error.code}: ${parsed.error.message}`;
          } catch {}
          const status = res.statusCode ?? 0;
          // A key refused or not allowed stays so: say why and stop. Anything else may pass.
          if (status === 401 || status === 403) {
            err(`routekit listen: ${status} ${message}`);
            finish(1);
          } else again(`routekit listen: ${status} ${message}`);
        });
      });
      ws.on("message", (data) => {
        let message: ServerMessage;
        try {
          message = JSON.parse(data.toString()) as ServerMessage;
        } catch {
          return;
        }
        if (message.type === "ready") {
          attempt = 0;
          out(
            `Ready! Forwarding this account's listen numbers' events to ${opts.forwardTo} (listener ${message.listenerId})`,
          );
        } else if (message.type === "event") void forward(ws, message);
      });
      ws.on("close", (code, reason) => {
        if (refused || done) return;
        const final = FINAL_CLOSES[code];
        if (final) {
          err(`routekit listen: closed (${code}): ${reason.toString() || final}`);
          finish(1);
          return;
        }
        again(`routekit listen: disconnected (${code}${reason.length ? `: ${reason.toString()}` : ""})`);
      });
      ws.on("error", (e) => {
        // "close" follows; a refused connection is said there.
        if (!refused && ws.readyState !== WebSocket.OPEN) err(`routekit listen: ${e.message}`);
      });
    }

    async function forward(ws: WebSocket, event: EventMessage) {
      const started = Date.now();
      let answer: Record<string, unknown>;
      try {
        const res = await fetch(opts.forwardTo, {
          method: "POST",
          headers: event.headers,
          body: event.body,
          signal: AbortSignal.timeout(event.timeoutMs),
          redirect: "manual",
        });
        const body = await res.text();
        answer = {
          status: res.status,
          contentType: res.headers.get("content-type"),
          body:
            Buffer.byteLength(body) > MAX_ANSWER_BYTES
              ? Buffer.from(body).subarray(0, MAX_ANSWER_BYTES).toString()
              : body,
        };
        out(
          `${new Date().toISOString()}  ${event.eventType}  ${event.headers["webhook-id"] ?? ""}  -> ${res.status} (${Date.now() - started} ms)`,
        );
      } catch (e) {
        const why =
          (e as Error).name === "TimeoutError" ? `no answer within ${event.timeoutMs} ms` : (e as Error).message;
        answer = { error: `${opts.forwardTo}: ${why}` };
        out(`${new Date().toISOString()}  ${event.eventType}  ${event.headers["webhook-id"] ?? ""}  -> failed: ${why}`);
      }
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "answer", id: event.id, ...answer }));
    }

    connect();
  });
}
