import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DurableJournal, JournalFullError } from "../../src/server/engine/durable-journal";

type Entry = { callSid: string; n: number };
const fresh = () => mkdtempSync(path.join(tmpdir(), "journal-test-"));

describe("DurableJournal", () => {
  it("keeps entries across instances (a restart) and applies each once, oldest first", async () => {
    const dir = fresh();
    const writer = new DurableJournal<Entry>(dir);
    for (let n = 0; n < 5; n++) await writer.append({ callSid: `CA${n}`, n });

    const restarted = new DurableJournal<Entry>(dir);
    const applied: number[] = [];
    const apply = async (e: Entry) => {
      applied.push(e.n);
      return "done" as const;
    };
    // Two passes at once (the start-up pass and the loop's) share one pass.
    const [a, b] = await Promise.all([restarted.replay(apply), restarted.replay(apply)]);
    expect(a).toEqual({ applied: 5, corrupt: 0, remaining: 0 });
    expect(b).toBe(a);
    expect(await restarted.replay(apply)).toEqual({ applied: 0, corrupt: 0, remaining: 0 });
    expect(applied).toEqual([0, 1, 2, 3, 4]);
  });

  it("a torn write (a half-written entry, or one that never got its name) poisons nothing else", async () => {
    const dir = fresh();
    const journal = new DurableJournal<Entry>(dir);
    await journal.append({ callSid: "CA1", n: 1 });
    const second = await journal.append({ callSid: "CA2", n: 2 });
    await journal.append({ callSid: "CA3", n: 3 });
    // Power lost in the middle of writing: the file holds half its bytes.
    const full = readFileSync(path.join(dir, second), "utf8");
    writeFileSync(path.join(dir, second), full.slice(0, Math.floor(full.length / 2)));
    // An entry whose bytes changed keeps valid JSON but fails its checksum.
    const flipped = await journal.append({ callSid: "CA4", n: 4 });
    writeFileSync(
      path.join(dir, flipped),
      readFileSync(path.join(dir, flipped), "utf8").replace('\\"n\\":4', '\\"n\\":9'),
    );
    // A crash before the rename leaves only a temporary file.
    writeFileSync(path.join(dir, ".9999999999999-abc.json.tmp"), '{"v":1,"sha');

    const applied: number[] = [];
    const result = await journal.replay(async (e) => {
      applied.push(e.n);
      return "done";
    });
    expect(applied).toEqual([1, 3]);
    expect(result).toEqual({ applied: 2, corrupt: 2, remaining: 0 });
    expect(readdirSync(path.join(dir, "corrupt")).sort()).toEqual([second, flipped].sort());
    expect(await journal.pendingNames()).toEqual([]);
  });

  it("'retry' stops the pass and keeps the rest; 'skip' keeps one and goes on", async () => {
    const dir = fresh();
    const journal = new DurableJournal<Entry>(dir);
    for (let n = 0; n < 4; n++) await journal.append({ callSid: `CA${n}`, n });

    let databaseUp = false;
    const seen: number[] = [];
    const apply = async (e: Entry) => {
      seen.push(e.n);
      if (e.n === 1) return "skip" as const;
      return databaseUp || e.n === 0 ? ("done" as const) : ("retry" as const);
    };
    expect(await journal.replay(apply)).toEqual({ applied: 1, corrupt: 0, remaining: 3 });
    expect(seen).toEqual([0, 1, 2]);
    databaseUp = true;
    expect(await journal.replay(apply)).toEqual({ applied: 2, corrupt: 0, remaining: 1 });
    expect((await journal.pendingNames()).length).toBe(1);
  });

  it("keeps the order of entries appended within one millisecond", async () => {
    const journal = new DurableJournal<Entry>(fresh());
    const names: string[] = [];
    for (let n = 0; n < 50; n++) names.push(await journal.append({ callSid: `CA${n}`, n }));
    expect(await journal.pendingNames()).toEqual(names);
  });

  it("refuses entries past its bound", async () => {
    const journal = new DurableJournal<Entry>(fresh(), { maxEntries: 2 });
    await journal.append({ callSid: "CA1", n: 1 });
    await journal.append({ callSid: "CA2", n: 2 });
    await expect(journal.append({ callSid: "CA3", n: 3 })).rejects.toBeInstanceOf(JournalFullError);
  });
});
