import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import path from "node:path";

/**
 * A local, durable queue of JSON entries: one file per entry, so a torn write
 * can only ever damage the entry being written, never the ones before it.
 * An entry is written to a temporary name, flushed, renamed into place and the
 * directory flushed: once `append` resolves it survives a crash or power loss.
 * Each file carries a SHA-256 of its entry; a file that fails it (or never got
 * its final name) is set aside and never applied.
 */
/**
 * Entries appended, for the order of entries within one millisecond. Per module graph: only the custom
 * server's graph appends (the engine), and a name also carries random bits, so two never collide.
 */
let appended = 0;

export class DurableJournal<T> {
  private replaying: Promise<ReplayResult> | null = null;
  /** Entries on disk, counted once and then kept up to date: the bound costs no directory scan per append. */
  private count: number | null = null;

  constructor(
    readonly dir: string,
    private readonly opts: { maxEntries?: number } = {},
  ) {}

  /** Resolves once the entry is on disk. Throws when the journal is full (opts.maxEntries). */
  async append(entry: T): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    this.count ??= (await this.pendingNames()).length;
    if (this.opts.maxEntries !== undefined && this.count >= this.opts.maxEntries) throw new JournalFullError();
    this.count++;
    const body = JSON.stringify(entry);
    const text = `${JSON.stringify({ v: 1, sha256: sha256(body), entry: body })}\n`;
    // Sorts by time of arrival: the millisecond, then this process's own sequence (two entries in one millisecond
    // keep their order; a random suffix sorted them by chance), then a random part so two processes never collide.
    const name = `${Date.now().toString().padStart(15, "0")}-${(++appended).toString().padStart(10, "0")}-${randomBytes(6).toString("hex")}.json`;
    const temp = path.join(this.dir, `.${name}.tmp`);
    try {
      const file = await open(temp, "wx", 0o600);
      try {
        await file.writeFile(text, "utf8");
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temp, path.join(this.dir, name));
      await syncDir(this.dir);
    } catch (err) {
      this.count--;
      throw err;
    }
    return name;
  }

  /** Entries waiting to be applied, oldest first. */
  async pendingNames(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    return names.filter((n) => n.endsWith(".json") && !n.startsWith(".")).sort();
  }

  /**
   * Applies each entry, oldest first, and removes it once `apply` says it is
   * done. `apply` returning "retry" (say, the database is still down) stops the
   * pass; the entry and the ones after it stay for the next. "skip" keeps the
   * entry for the next pass but goes on with the others. One pass at a
   * time: a call while a pass runs waits for that pass. `apply` must be
   * idempotent: a crash between applying and removing applies the entry again.
   */
  replay(apply: (entry: T, name: string) => Promise<ReplayOutcome>): Promise<ReplayResult> {
    this.replaying ??= this.replayOnce(apply).finally(() => {
      this.replaying = null;
    });
    return this.replaying;
  }

  private async replayOnce(apply: (entry: T, name: string) => Promise<ReplayOutcome>): Promise<ReplayResult> {
    const result: ReplayResult = { applied: 0, corrupt: 0, remaining: 0 };
    const names = await this.pendingNames();
    this.count = names.length;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const entry = await this.read(name);
      if (entry === undefined) {
        await this.setAside(name);
        this.count = Math.max(0, (this.count ?? 1) - 1);
        result.corrupt++;
        continue;
      }
      const outcome = await apply(entry, name);
      if (outcome === "retry") {
        result.remaining += names.length - i;
        return result;
      }
      if (outcome === "skip") {
        result.remaining++;
        continue;
      }
      await unlink(path.join(this.dir, name)).catch(ignoreMissing);
      this.count = Math.max(0, (this.count ?? 1) - 1);
      result.applied++;
    }
    return result;
  }

  private async read(name: string): Promise<T | undefined> {
    try {
      const record = JSON.parse(await readFile(path.join(this.dir, name), "utf8")) as {
        v?: unknown;
        sha256?: unknown;
        entry?: unknown;
      };
      if (record.v !== 1 || typeof record.entry !== "string" || record.sha256 !== sha256(record.entry))
        return undefined;
      return JSON.parse(record.entry) as T;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") throw err;
      return undefined;
    }
  }

  /** A damaged entry is kept for a person to look at, out of the way of the others. */
  private async setAside(name: string): Promise<void> {
    const aside = path.join(this.dir, "corrupt");
    await mkdir(aside, { recursive: true });
    await rename(path.join(this.dir, name), path.join(aside, name)).catch(ignoreMissing);
  }
}

export type ReplayOutcome = "done" | "retry" | "skip";
export type ReplayResult = { applied: number; corrupt: number; remaining: number };

export class JournalFullError extends Error {
  constructor() {
    super("the journal is full");
    this.name = "JournalFullError";
  }
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The rename is durable only once the directory itself is flushed. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function ignoreMissing(err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
}
