import type { Transaction } from "kysely";
import { kysely, type DB } from "./kysely";

export type SqlTransaction = Transaction<DB>;

/**
 * Runs `work` in one transaction on a pooled connection, for code that speaks
 * Kysely (the engine, delivery attempts, anything that sends jobs with its
 * change: jobs/job-queue.ts `onTransaction`). Committed when `work` resolves,
 * rolled back when it throws. Under load the pool waits for a free connection
 * (up to 5 s, see db/client.ts) rather than failing at once.
 */
export function sqlTransaction<T>(work: (trx: SqlTransaction) => Promise<T>): Promise<T> {
  return kysely().transaction().execute(work);
}
