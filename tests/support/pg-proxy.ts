import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * One statement a client ran through the proxy: its text, when it was sent,
 * and `answered`, which a watcher may set: it runs synchronously when the
 * server's answer arrives, before the answer is passed on to the client. A
 * watcher that sets `drop` cuts the connection instead: the statement never
 * reaches the server, and the client sees its connection lost.
 */
export type SeenStatement = { sql: string; connection: number; sentAt: number; answered?: () => void; drop?: boolean };

/**
 * A TCP proxy in front of PostgreSQL that reads the wire protocol as it
 * passes: it tells the test which statements a process sends, in order, and
 * lets the test act at the exact moment the server has answered one of them
 * (ReadyForQuery: the statement is committed) before the process hears it.
 */
export async function startPgProxy(target: { host: string; port: number }) {
  const statements: SeenStatement[] = [];
  let onStatement: ((s: SeenStatement) => void) | null = null;
  let connections = 0;
  const sockets = new Set<Socket>();

  const server: Server = createServer((client) => {
    const id = ++connections;
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const named = new Map<string, string>();
    // Statements sent on this connection and not yet answered, oldest first (one ReadyForQuery per Sync or Query).
    const pending: SeenStatement[] = [];
    let lastParsed = "";
    let startup = true;
    let fromClient = Buffer.alloc(0);
    let fromServer = Buffer.alloc(0);

    client.on("data", (chunk: Buffer) => {
      fromClient = Buffer.concat([fromClient, chunk]);
      for (;;) {
        if (startup) {
          if (fromClient.length < 4) break;
          const len = fromClient.readInt32BE(0);
          if (fromClient.length < len) break;
          fromClient = fromClient.subarray(len);
          startup = false;
          continue;
        }
        if (fromClient.length < 5) break;
        const type = String.fromCharCode(fromClient[0]!);
        const len = fromClient.readInt32BE(1);
        if (fromClient.length < 1 + len) break;
        const body = fromClient.subarray(5, 1 + len);
        fromClient = fromClient.subarray(1 + len);
        const cstrings = () => body.toString("utf8").split("\0");
        if (type === "P") {
          const [name, text] = cstrings();
          if (name) named.set(name, text!);
          lastParsed = text!;
        } else if (type === "B") {
          const [, statement] = cstrings();
          lastParsed = statement ? (named.get(statement) ?? lastParsed) : lastParsed;
        } else if (type === "Q" || type === "S") {
          const text = type === "Q" ? cstrings()[0]! : lastParsed;
          const seen: SeenStatement = { sql: text, connection: id, sentAt: Date.now() };
          pending.push(seen);
          statements.push(seen);
          onStatement?.(seen);
          if (seen.drop) return close();
        }
      }
      upstream.write(chunk);
    });

    upstream.on("data", (chunk: Buffer) => {
      fromServer = Buffer.concat([fromServer, chunk]);
      let answered = 0;
      for (;;) {
        if (fromServer.length < 5) break;
        const type = String.fromCharCode(fromServer[0]!);
        const len = fromServer.readInt32BE(1);
        if (fromServer.length < 1 + len) break;
        fromServer = fromServer.subarray(1 + len);
        if (type === "Z") answered++;
      }
      // A watcher acts before the answer is passed on: the client has not heard it yet.
      for (let i = 0; i < answered; i++) pending.shift()?.answered?.();
      if (!client.destroyed) client.write(chunk);
    });

    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    statements,
    /** Called with every statement as it is sent (synchronously, before it reaches the server). */
    watch(fn: ((s: SeenStatement) => void) | null) {
      onStatement = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
