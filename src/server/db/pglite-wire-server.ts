import { createServer, type Server, type Socket } from "node:net";
import type { PGlite } from "@electric-sql/pglite";

/**
 * Serves one PGlite over the PostgreSQL wire protocol to many connections.
 *
 * PGlite is a single backend session. `@electric-sql/pglite-socket` only keeps
 * a connection exclusive inside an explicit transaction block, so two clients'
 * extended-protocol messages (Parse, Bind, Execute … Sync) interleave and one
 * binds the other's unnamed statement ("unnamed prepared statement does not
 * exist", seen under concurrent requests). Here a connection owns the session
 * from its first message until PGlite answers ReadyForQuery with status idle:
 * after a Sync or simple Query outside a transaction. Others wait their turn,
 * first come first served.
 */

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const GSSENC_REQUEST = 80877104;
const TERMINATE = 0x58; // 'X'
const READY_FOR_QUERY = 0x5a; // 'Z'
const SYNC_MESSAGE = new Uint8Array([0x53, 0, 0, 0, 4]); // 'S'

class SessionGate {
  owner: number | null = null;
  private waiters: { id: number; admit: () => void }[] = [];

  async enter(id: number): Promise<void> {
    if (this.owner === id) return;
    if (this.owner === null) {
      this.owner = id;
      return;
    }
    await new Promise<void>((admit) => this.waiters.push({ id, admit }));
  }

  leave(id: number): void {
    if (this.owner !== id) return;
    const next = this.waiters.shift();
    this.owner = next?.id ?? null;
    next?.admit();
  }

  /** A connection that closed while waiting must not be admitted later. */
  forget(id: number): void {
    this.waiters = this.waiters.filter((w) => w.id !== id);
  }
}

/** Transaction status of the last ReadyForQuery in a backend response: I, T or E. */
export function lastReadyStatus(out: Uint8Array): string | null {
  let status: string | null = null;
  let offset = 0;
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  while (offset + 5 <= out.length) {
    const type = out[offset];
    const length = view.getInt32(offset + 1);
    if (type === READY_FOR_QUERY && length === 5 && offset + 6 <= out.length)
      status = String.fromCharCode(out[offset + 5]!);
    offset += 1 + length;
  }
  return status;
}

export type PgliteWireServer = { host: string; port: number; close(): Promise<void> };

export async function startPgliteWireServer(
  db: PGlite,
  opts: { host?: string; port?: number; maxConnections?: number } = {},
): Promise<PgliteWireServer> {
  await db.waitReady;
  const gate = new SessionGate();
  const sockets = new Set<Socket>();
  let nextId = 1;

  const server: Server = createServer((socket) => {
    if (sockets.size >= (opts.maxConnections ?? 64)) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    const id = nextId++;
    socket.setNoDelay(true);
    let buffer = Buffer.alloc(0);
    let started = false;
    let queue = Promise.resolve();

    const exchange = async (message: Uint8Array): Promise<void> => {
      await gate.enter(id);
      const out = await db.runExclusive(() => db.execProtocolRaw(message));
      if (out.length && !socket.destroyed) socket.write(out);
      if (lastReadyStatus(out) === "I") gate.leave(id);
    };

    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const messages: Uint8Array[] = [];
      for (;;) {
        if (!started) {
          if (buffer.length < 8) break;
          const length = buffer.readInt32BE(0);
          const code = buffer.readInt32BE(4);
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
            socket.write("N"); // no encryption on loopback
            buffer = buffer.subarray(8);
            continue;
          }
          if (code === CANCEL_REQUEST) {
            socket.destroy(); // not supported; the client just stops waiting
            return;
          }
          if (buffer.length < length) break;
          messages.push(new Uint8Array(buffer.subarray(0, length)));
          buffer = buffer.subarray(length);
          started = true;
          continue;
        }
        if (buffer.length < 5) break;
        const length = buffer.readInt32BE(1) + 1;
        if (buffer.length < length) break;
        messages.push(new Uint8Array(buffer.subarray(0, length)));
        buffer = buffer.subarray(length);
      }
      queue = queue
        .then(async () => {
          for (const message of messages) {
            if (socket.destroyed) return;
            if (message[0] === TERMINATE && started) {
              socket.end();
              return;
            }
            await exchange(message);
          }
        })
        .catch(() => {
          socket.destroy();
        });
    });

    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      sockets.delete(socket);
      gate.forget(id);
      // Whatever this client left open (a half-sent extended query, a
      // transaction) is closed before the session passes to the next one.
      queue = queue
        .then(async () => {
          if (gate.owner !== id) return;
          try {
            await db.runExclusive(() => db.execProtocolRaw(SYNC_MESSAGE));
            if (db.isInTransaction()) await db.exec("ROLLBACK");
          } finally {
            gate.leave(id);
          }
        })
        .catch(() => gate.leave(id));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (!address || typeof address !== "object") throw new Error("wire server has no address");

  return {
    host: address.address,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
