import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// docs/performance.md is where a benchmark's method and figures live (CONTRIBUTING.md points there instead of
// keeping a list of its own, which went stale); a benchmark it does not name is one nobody finds or reruns.
const root = path.resolve(import.meta.dirname, "../..");

/** The benchmarks in bench/ (its top level: bench/support and bench/reference hold their parts) that `doc` never names. */
export function unnamedBenchmarks(files: string[], doc: string): string[] {
  return files.filter((file) => !doc.includes(`bench/${file}`));
}

describe("docs/performance.md", () => {
  it("names every benchmark in bench/", () => {
    const files = readdirSync(path.join(root, "bench")).filter((name) => name.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(10);
    expect(unnamedBenchmarks(files, readFileSync(path.join(root, "docs/performance.md"), "utf8"))).toEqual([]);
  });

  it("tells a named benchmark from an unnamed one (the check can fail)", () => {
    expect(unnamedBenchmarks(["side-by-side.ts", "new-bench.ts"], "`npx tsx bench/side-by-side.ts`")).toEqual([
      "new-bench.ts",
    ]);
  });
});
