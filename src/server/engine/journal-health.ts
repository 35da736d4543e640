import { mkdir, open, readdir, statfs, unlink } from "node:fs/promises";
import path from "node:path";
import { env } from "../env";
import { logger } from "../logger";
import { errorSummary } from "../db/database-availability";

/** The journal's directory under DATA_DIR (final-status-journal.ts keeps it; this module stays free of the engine's imports, for the Next.js bundle). */
export function finalStatusJournalDir(): string {
  return path.join(env().dataDir, "engine-journal");
}

/**
 * The journal of final statuses is what keeps a status through a database
 * outage; a full or read-only disk would only show when it is needed. So its
 * directory is checked while all is well: that a file can be written there,
 * and that the disk keeps more than JOURNAL_MIN_FREE_MB free.
 */
export type JournalHealth = {
  /** "ok", or what is wrong: "read-only: EROFS…", "low on space: …". */
  check: string;
  writable: boolean;
  freeBytes: number | null;
  /** Final statuses waiting for the database. */
  depth: number;
  oldestAgeSeconds: number | null;
};

const MONITOR_INTERVAL_MS = 5_000;

// Per module graph: the journal's monitor runs in the custom server's graph (main.ts), which is also the
// one that serves readiness and metrics; `probes` only makes each probe file's name unique.
let probes = 0;
/** The monitor's last check and when it was made (per module graph, as above). */
let latest: { health: JournalHealth; at: number } | null = null;

/**
 * The journal's state as the monitor last saw it, when that was within two of its intervals (else null:
 * no monitor runs here, or it is stuck). A Prometheus scrape reads this instead of writing a probe file
 * of its own each time.
 */
export function recentJournalHealth(): JournalHealth | null {
  return latest && Date.now() - latest.at <= 2 * MONITOR_INTERVAL_MS ? latest.health : null;
}

export async function journalHealth(): Promise<JournalHealth> {
  const dir = finalStatusJournalDir();
  const floor = env().journalMinFreeBytes;
  let writable = true;
  let check = "ok";
  try {
    await mkdir(dir, { recursive: true });
    // Written and removed, not flushed: it is the permission and the file system that are in question.
    // Its own name per check: the monitor and a readiness probe may check at the same moment.
    const probe = path.join(dir, `.ready-probe-${process.pid}-${++probes}`);
    const file = await open(probe, "w", 0o600);
    try {
      await file.writeFile("ok");
    } finally {
      await file.close();
    }
    await unlink(probe);
  } catch (err) {
    writable = false;
    const code = (err as NodeJS.ErrnoException).code;
    check = `${code === "EROFS" ? "read-only" : code === "ENOSPC" ? "full" : "not writable"}: ${errorSummary(err)}`;
  }
  let freeBytes: number | null = null;
  try {
    const fs = await statfs(writable ? dir : path.dirname(dir));
    freeBytes = Number(fs.bavail) * Number(fs.bsize);
    if (writable && freeBytes < floor)
      check = `low on space: ${mib(freeBytes)} free, below the ${mib(floor)} floor (JOURNAL_MIN_FREE_MB)`;
  } catch (err) {
    if (writable) check = `cannot read free space: ${errorSummary(err)}`;
  }
  const entries = (await readdir(dir).catch(() => [] as string[])).filter(
    (n) => n.endsWith(".json") && !n.startsWith("."),
  );
  // Entry names start with their arrival time in milliseconds (durable-journal.ts).
  // biome-ignore lint/complexity/useMathMinMax: the names compare as strings (fixed-width times), Math.min would turn them into NaN
  const oldest = entries.length ? Number.parseInt(entries.reduce((a, b) => (a < b ? a : b)).slice(0, 15), 10) : NaN;
  return {
    check,
    writable,
    freeBytes,
    depth: entries.length,
    oldestAgeSeconds: Number.isFinite(oldest) ? Math.max(0, Math.round((Date.now() - oldest) / 1000)) : null,
  };
}

function mib(bytes: number): string {
  return `${Math.floor(bytes / (1024 * 1024))} MiB`;
}

/**
 * Checks the journal every few seconds and logs when its state changes: its
 * check (ok, read-only, low on space), or whether statuses are waiting. The
 * depth itself is not a change worth a line; it is in every line and in /api/ready.
 */
export function startJournalMonitor(): () => void {
  let last: { check: string; waiting: boolean } | null = null;
  const run = async () => {
    const health = await journalHealth();
    latest = { health, at: Date.now() };
    const now = { check: health.check, waiting: health.depth > 0 };
    if (last && last.check === now.check && last.waiting === now.waiting) return;
    const first = last === null;
    last = now;
    if (first && now.check === "ok" && !now.waiting) return;
    const entry = { journal: finalStatusJournalDir(), ...health };
    if (now.check !== "ok")
      logger().error(entry, "the final-status journal cannot take statuses: an outage now would lose them");
    else if (now.waiting) logger().warn(entry, "final statuses are waiting in the journal for the database");
    else logger().info(entry, "the final-status journal is healthy and empty");
  };
  const tick = () =>
    void run().catch((err: unknown) => logger().error({ err: errorSummary(err) }, "the journal check failed"));
  tick();
  const timer = setInterval(tick, MONITOR_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
