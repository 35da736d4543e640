import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastReadyStatus, startPgliteWireServer, type PgliteWireServer } from "../../src/server/db/pglite-wire-server";

let db: PGlite;
let server: PgliteWireServer;
let url: string;
// On disk, as the service runs it: file-system syncs are where one client's
// messages used to slip between another's.
const dataDir = mkdtempSync(path.join(tmpdir(), "routekit-pglite-"));

beforeAll(async () => {
  db = await PGlite.create(path.join(dataDir, "pgdata"));
  server = await startPgliteWireServer(db);
  url = `postgresql://postgres@${server.host}:${server.port}/postgres?sslmode=disable`;
  await db.exec("CREATE TABLE t (id serial primary key, owner int not null, v text not null)");
  // Creating a PGlite database (its WASM start and initdb) took over 10 s on a loaded 2-core machine.
}, 60_000);
afterAll(async () => {
  await server.close();
  await db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("PGlite wire server", () => {
  it("keeps concurrent extended-protocol queries from many connections apart", async () => {
    const pool = new pg.Pool({ connectionString: url, max: 12 });
    try {
      const results = await Promise.all(
        Array.from({ length: 400 }, async (_, i) => {
          // Different statement texts, so an interleaved Parse would bind the wrong one.
          const r = await pool.query(
            i % 2 ? "SELECT $1::int AS n, $2::text AS s" : "SELECT $2::text AS s, $1::int AS n, 'x' AS pad",
            [i, `v${i}`],
          );
          return r.rows[0].n === i && r.rows[0].s === `v${i}`;
        }),
      );
      expect(results.every(Boolean)).toBe(true);
    } finally {
      await pool.end();
    }
  });

  it("isolates transactions and recovers from errors inside them", async () => {
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    try {
      await Promise.all(
        Array.from({ length: 40 }, async (_, owner) => {
          const client = await pool.connect();
          try {
            await client.query("BEGIN");
            await client.query("INSERT INTO t (owner, v) VALUES ($1, $2)", [owner, "a"]);
            if (owner % 5 === 0) {
              await expect(client.query("SELECT 1 / $1::int", [0])).rejects.toThrow(/division by zero/);
              await client.query("ROLLBACK");
              return;
            }
            await client.query("INSERT INTO t (owner, v) VALUES ($1, $2)", [owner, "b"]);
            const mine = await client.query("SELECT count(*)::int AS n FROM t WHERE owner = $1", [owner]);
            expect(mine.rows[0].n).toBe(2);
            await client.query("COMMIT");
          } finally {
            client.release();
          }
        }),
      );
      const { rows } = await pool.query("SELECT owner, count(*)::int AS n FROM t GROUP BY owner ORDER BY owner");
      expect(rows.map((r) => r.owner)).toEqual(Array.from({ length: 40 }, (_, i) => i).filter((i) => i % 5 !== 0));
      expect(rows.every((r) => r.n === 2)).toBe(true);
    } finally {
      await pool.end();
    }
  });

  it("rolls back what a client left open when it disconnects, and lets the others through", async () => {
    const quitter = new pg.Client({ connectionString: url });
    const other = new pg.Client({ connectionString: url });
    quitter.on("error", () => {}); // its own disconnect
    await quitter.connect();
    await other.connect();
    await quitter.query("BEGIN");
    await quitter.query("INSERT INTO t (owner, v) VALUES (999, 'left open')");
    const waiting = other.query("SELECT count(*)::int AS n FROM t WHERE owner = 999");
    (quitter as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    expect((await waiting).rows[0].n).toBe(0);
    await other.end();
  });

  it("reads the transaction status of the last ReadyForQuery", () => {
    const z = (s: string) => [0x5a, 0, 0, 0, 5, s.charCodeAt(0)];
    expect(lastReadyStatus(new Uint8Array([0x31, 0, 0, 0, 4, ...z("T"), ...z("I")]))).toBe("I");
    expect(lastReadyStatus(new Uint8Array([...z("I"), 0x43, 0, 0, 0, 4, ...z("E")]))).toBe("E");
    expect(lastReadyStatus(new Uint8Array([0x31, 0, 0, 0, 4]))).toBeNull();
  });
});
