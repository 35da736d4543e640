import type pg from "pg";
import { pool } from "./client";

/**
 * Runs `work` in one transaction on a pooled connection, for the hot paths that
 * speak plain SQL (the engine, delivery attempts). Committed when `work`
 * resolves, rolled back when it throws. Under load the pool waits for a free
 * connection (up to 5 s, see db/client.ts) rather than failing at once.
 */
export async function sqlTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool().connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch((rollbackFailed: unknown) => {
      broken = rollbackFailed instanceof Error ? rollbackFailed : new Error("rollback failed");
    });
    throw err;
  } finally {
    // A connection whose rollback failed is in an unknown state: it is closed, not reused.
    client.release(broken);
  }
}
