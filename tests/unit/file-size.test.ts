import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Issue #41: no file in src/server over 500 lines. A file that long has grown more than one job
 * (CONTRIBUTING: "a file that has grown three jobs becomes three files"), and the next change to it is
 * harder to review than it needs to be. Generated code is exempt, and none lives under src/server:
 * Prisma's client and Kysely's row types are generated into src/generated.
 */
const MAX_LINES = 500;

const root = path.resolve(import.meta.dirname, "../..");
const server = path.join(root, "src/server");

/**
 * Files allowed over the limit while they are being split, each with its reason. An entry whose file
 * is back under the limit (or gone) fails the test, so the exception ends with the split.
 */
const ALLOWED_OVER: Record<string, string> = {};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** As `wc -l` counts them for a file that ends with a newline. */
function lineCount(file: string): number {
  const text = readFileSync(file, "utf8");
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

describe("file size", () => {
  const counts = new Map(sourceFiles(server).map((file) => [path.relative(root, file), lineCount(file)]));

  it("walks src/server", () => {
    expect(counts.has("src/server/main.ts")).toBe(true);
    expect(counts.has("src/server/trpc/rest-procedure.ts")).toBe(true);
  });

  it(`keeps every .ts and .tsx file under src/server at ${MAX_LINES} lines or fewer`, () => {
    const offenders = [...counts]
      .filter(([file, lines]) => lines > MAX_LINES && !(file in ALLOWED_OVER))
      .sort(([, a], [, b]) => b - a)
      .map(([file, lines]) => `${file}: ${lines} lines`);
    expect(offenders, `over ${MAX_LINES} lines: split them by job`).toEqual([]);
  });

  it("allows only files that are still over the limit", () => {
    const stale = Object.keys(ALLOWED_OVER)
      .filter((file) => (counts.get(file) ?? 0) <= MAX_LINES)
      .map(
        (file) => `${file}: ${counts.has(file) ? `${counts.get(file)} lines` : "gone"}, remove it from ALLOWED_OVER`,
      );
    expect(stale).toEqual([]);
  });
});
