import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * ARCHITECTURE.md, runtime/remember.ts: the custom server and the Next.js bundles are separate module graphs
 * in one process, so a module-level `let` exists once per graph. State that must exist once per process goes
 * through `remember()`. A module-level `let` is allowed only with the reason it may differ per graph written
 * in the comment right above it ("per module graph: …"), so the choice is made, and seen, where it is made.
 */
const serverDir = path.resolve(import.meta.dirname, "../../src/server");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [full] : [];
  });
}

/** The comment block right above line `i` (`//` lines or a `/* … *\/` block), lower-cased. */
function commentAbove(lines: string[], i: number): string {
  const block: string[] = [];
  let j = i - 1;
  if (lines[j]?.trim().endsWith("*/")) {
    while (j >= 0 && !lines[j]!.trim().startsWith("/*")) block.unshift(lines[j--]!);
    if (j >= 0) block.unshift(lines[j]!);
  } else {
    while (j >= 0 && lines[j]!.trim().startsWith("//")) block.unshift(lines[j--]!);
  }
  return block.join("\n").toLowerCase();
}

export function unexplainedModuleLets(file: string, text: string): string[] {
  const lines = text.split("\n");
  return lines.flatMap((line, i) =>
    /^(export\s+)?let\s/.test(line) && !commentAbove(lines, i).includes("per module graph")
      ? [`${path.relative(serverDir, file)}:${i + 1}: ${line.trim()}`]
      : [],
  );
}

describe("module state in src/server", () => {
  it("has no module-level let without its reason (per module graph) written above it", () => {
    const found = sourceFiles(serverDir).flatMap((f) => unexplainedModuleLets(f, readFileSync(f, "utf8")));
    expect(found).toEqual([]);
  });

  it("finds an unexplained let, and accepts one with its reason", () => {
    expect(unexplainedModuleLets("/x.ts", "const a = 1;\nlet queued = [];\n")).toHaveLength(1);
    expect(unexplainedModuleLets("/x.ts", "/** The queue. */\nlet queued = [];\n")).toHaveLength(1);
    expect(unexplainedModuleLets("/x.ts", "// Per module graph: a cache.\nlet cached;\n")).toEqual([]);
    expect(unexplainedModuleLets("/x.ts", "/**\n * Per module graph: a cache.\n */\nlet cached;\n")).toEqual([]);
    // Inside a function it is not module state.
    expect(unexplainedModuleLets("/x.ts", "function f() {\n  let n = 0;\n}\n")).toEqual([]);
  });
});
