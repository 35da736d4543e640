import { readFileSync } from "node:fs";
import type pg from "pg";

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux; 100 ticks a second). */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // After "pid (comm) ", utime and stime are the 12th and 13th fields.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU (ms) used so far by each of a database's backends: PostgreSQL's share of the work, when it runs on this host. */
export async function databaseCpu(db: pg.Client, datname: string): Promise<Map<number, number>> {
  const { rows } = await db.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
    [datname],
  );
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      cpu.set(pid, processCpuMs(pid));
    } catch {
      // gone meanwhile, or on another host
    }
  }
  return cpu;
}

/**
 * What the backends alive at the end used since the start (a backend opened meanwhile: all of it).
 * A backend that closed meanwhile (the pool's idle timeout) takes its share with it: a little low, never negative.
 */
export function cpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
