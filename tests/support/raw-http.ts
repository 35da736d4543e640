import http from "node:http";
import net from "node:net";
import { baseUrlOf, randomIp, type Server } from "./api";

export type RawAnswer = { status: number; headers: http.IncomingHttpHeaders; text: string; body: any };

/**
 * A request sent as written: any method (TRACE, CONNECT), any path (`/api/%`),
 * any body; no contract check, since these are not documented operations.
 */
export function rawRequest(
  method: string,
  path: string,
  opts: { server?: Server; baseUrl?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawAnswer> {
  const base = new URL(opts.baseUrl ?? baseUrlOf(opts.server));
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { "x-forwarded-for": randomIp(), ...opts.headers };
    if (opts.body !== undefined) headers["content-length"] = Buffer.byteLength(opts.body);
    const req = http.request({ host: base.hostname, port: base.port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: any;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

/** A body that arrives in chunks with no declared length, `total` bytes of `fill`. */
export function chunkedRequest(
  method: string,
  path: string,
  total: number,
  opts: { server?: Server; headers?: Record<string, string>; fill?: string } = {},
): Promise<RawAnswer> {
  const base = new URL(baseUrlOf(opts.server));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        headers: { "x-forwarded-for": randomIp(), "transfer-encoding": "chunked", ...opts.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            body: text ? JSON.parse(text) : undefined,
          });
        });
      },
    );
    // The server answers 413 and closes while the rest is still being written: that is expected.
    req.on("error", (err) => (String(err).match(/EPIPE|ECONNRESET/) ? undefined : reject(err)));
    const piece = (opts.fill ?? "x").repeat(1024);
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += piece.length;
        if (!req.write(piece)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

/** Writes `text` on a fresh connection and reads until the server closes it (or `waitMs`). */
export function rawSocket(
  text: string,
  opts: { server?: Server; baseUrl?: string; waitMs?: number } = {},
): Promise<string> {
  const base = new URL(opts.baseUrl ?? baseUrlOf(opts.server));
  return new Promise((resolve) => {
    const socket = net.connect(Number(base.port), base.hostname);
    let data = "";
    socket.setTimeout(opts.waitMs ?? 5000, () => socket.destroy());
    socket.on("data", (d) => (data += d.toString("latin1")));
    socket.on("close", () => resolve(data));
    socket.on("error", () => resolve(data));
    socket.write(text);
  });
}

/** The `{ error: { code, message } }` envelope with this code. */
export function expectEnvelope(answer: RawAnswer, status: number, code: string): void {
  if (
    answer.status !== status ||
    answer.body?.error?.code !== code ||
    typeof answer.body?.error?.message !== "string"
  ) {
    throw new Error(`expected ${status} ${code} in the envelope, got ${answer.status} ${answer.text.slice(0, 300)}`);
  }
  if (!String(answer.headers["content-type"]).includes("application/json"))
    throw new Error(`expected JSON, got ${answer.headers["content-type"]}`);
  if (!answer.headers["x-request-id"]) throw new Error("no x-request-id");
}
