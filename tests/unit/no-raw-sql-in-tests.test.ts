// Tests and benchmarks write rows through tests/support/seed.ts, typed by the schema: a hand-written
// `INSERT INTO "…"`, `UPDATE "…"` or `DELETE FROM "…"` string keeps compiling when its column changes, and the
// test breaks at run time, or quietly stops testing anything (issue #43). Reading with SQL strings is fine.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FOLDERS = ["tests", "bench", "e2e"];
const SELF = "tests/unit/no-raw-sql-in-tests.test.ts";

/** A write to a quoted table, as hand-written SQL spells it (the app's own statements are matched lower-case). */
const RAW_WRITE = /\bINSERT\s+INTO\s+"|\bUPDATE\s+"|\bDELETE\s+FROM\s+"/;

/** Files that may still write with SQL strings, and why. */
const ALLOWED: Record<string, string> = {
  "tests/unit/timestamptz-migration.test.ts":
    "writes the schema as it was before a migration, which today's generated types do not describe",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(rel);
    return /\.(c|m)?(t|j)sx?$/.test(entry.name) ? [rel] : [];
  });
}

describe("writes in tests and benchmarks", () => {
  it("recognises a hand-written write, on one line or across two", () => {
    expect(RAW_WRITE.test(`UPDATE "Account" SET status = 'ACTIVE'`)).toBe(true);
    expect(RAW_WRITE.test(`INSERT INTO\n  "Call" ("callSid") VALUES ($1)`)).toBe(true);
    expect(RAW_WRITE.test(`DELETE FROM "AccountLimit" WHERE "accountId" = $1`)).toBe(true);
    expect(RAW_WRITE.test(`SELECT status FROM "Account"`)).toBe(false);
  });

  it("go through tests/support/seed.ts, outside the allow-list", () => {
    const files = FOLDERS.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    const offenders = files
      .filter((file) => file !== SELF && !(file in ALLOWED))
      .flatMap((file) => {
        const text = readFileSync(path.join(ROOT, file), "utf8");
        return [...text.matchAll(new RegExp(RAW_WRITE.source, "g"))].map(
          (match) => `${file}:${text.slice(0, match.index).split("\n").length}`,
        );
      });
    expect(offenders, "write these rows with seed(server) / seeds(pool) from tests/support/seed.ts").toEqual([]);
  });

  it("allow-list only files that exist", () => {
    const files = new Set(FOLDERS.flatMap(sourceFiles));
    expect(Object.keys(ALLOWED).filter((file) => !files.has(file))).toEqual([]);
  });
});
