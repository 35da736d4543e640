import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Where code runs is visible from its path (ARCHITECTURE.md): a `"use client"` file is bundled for the
 * browser with everything it imports as a value, so none of that may be under `src/server` (the env
 * reader, the database, secrets). Type-only imports vanish at compile time and are allowed.
 */
const src = path.resolve(import.meta.dirname, "../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return full === path.join(src, "generated") ? [] : sourceFiles(full);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [full] : [];
  });
}

const VALUE_IMPORTS = [
  /^\s*import\s+(?!type\b)(?:[\w*\s{},$]+?\s+from\s+)?["']([^"']+)["']/gm,
  /^\s*export\s+(?!type\b)[\w*\s{},$]*?\s+from\s+["']([^"']+)["']/gm,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
];

function resolve(from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = path.join(src, specifier.slice(2));
  else if (specifier.startsWith(".")) base = path.resolve(path.dirname(from), specifier);
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  return null;
}

/** For each server file a client file reaches through value imports: one client file that reaches it. */
export function serverFilesReached(files: Map<string, string>): Map<string, string> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    const targets = new Set<string>();
    for (const pattern of VALUE_IMPORTS)
      for (const match of code.matchAll(pattern)) {
        const target = resolve(file, match[1]!);
        if (target) targets.add(target);
      }
    graph.set(file, [...targets]);
  }
  const reached = new Map<string, string>();
  for (const [file, text] of files) {
    if (!/^\s*["']use client["']/.test(text)) continue;
    const seen = new Set([file]);
    const queue = [file];
    while (queue.length) {
      for (const next of graph.get(queue.pop()!) ?? []) {
        if (seen.has(next)) continue;
        seen.add(next);
        queue.push(next);
        if (next.startsWith(path.join(src, "server") + path.sep) && !reached.has(next)) reached.set(next, file);
      }
    }
  }
  return reached;
}

describe("the browser bundle", () => {
  it('reaches no file under src/server from a "use client" file through value imports', () => {
    const files = new Map(sourceFiles(src).map((f) => [f, readFileSync(f, "utf8")]));
    const reached = [...serverFilesReached(files)].map(
      ([server, client]) => `${path.relative(src, server)} (from ${path.relative(src, client)})`,
    );
    expect(reached).toEqual([]);
  });

  it("finds a server file reached through a chain of value imports, and ignores type-only ones (the check can fail)", () => {
    const client = path.join(src, "client/toast.tsx");
    const shared = path.join(src, "shared/format.ts");
    const files = new Map([
      [
        client,
        '"use client";\nimport { formatMoney } from "../shared/format";\nimport type { Env } from "../server/env";\n',
      ],
      [shared, 'import { logger } from "../server/logger";\n'],
    ]);
    expect([...serverFilesReached(files).keys()].map((f) => path.relative(src, f))).toEqual(["server/logger.ts"]);
  });
});
