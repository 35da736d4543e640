import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export type Received = { headers: IncomingMessage["headers"]; body: string; path: string; at: number };
export type Reply = (req: Received, res: ServerResponse) => unknown;

/** A local customer backend that records what it receives and answers as told. */
export async function startReceiver(reply: Reply = (_r, res) => res.end("ok")) {
  const received: Received[] = [];
  let handler = reply;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        path: req.url ?? "/",
        at: Date.now(),
      };
      received.push(r);
      void handler(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: (path = "/hook") => `http://127.0.0.1:${port}${path}`,
    received,
    /** Unique webhook-ids seen: what a receiver that deduplicates would process. */
    uniqueIds: () => new Set(received.map((r) => String(r.headers["webhook-id"]))),
    answer(next: Reply) {
      handler = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
