import { readFileSync } from "node:fs";

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux; 100 ticks a second). */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // After "pid (comm) ", utime and stime are the 12th and 13th fields.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
