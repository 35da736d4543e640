import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const src = path.join(root, "src");

/** Every TypeScript file under src/, generated code excluded (Prisma's client has cycles of its own). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return full === path.join(src, "generated") ? [] : sourceFiles(full);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [full] : [];
  });
}

// Every import, type-only ones included: a type-only circle is still two files that cannot be read, changed
// or moved one without the other. Lazy `import("…")` counts: it runs the same module graph, only later.
const SPECIFIERS = [
  /^\s*import\s+(?:type\s+)?(?:[\w*\s{},$]+?\s+from\s+)?["']([^"']+)["']/gm,
  /^\s*export\s+(?:type\s+)?[\w*\s{},$]*?\s+from\s+["']([^"']+)["']/gm,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
];

function resolve(from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = path.join(src, specifier.slice(2));
  else if (specifier.startsWith(".")) base = path.resolve(path.dirname(from), specifier);
  else return null; // a package
  for (const candidate of [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, "index.ts"),
    path.join(base, "index.tsx"),
  ]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  return null;
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    // Comments may quote import lines; strip them before matching.
    const text = readFileSync(file, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    const targets = new Set<string>();
    for (const pattern of SPECIFIERS) {
      for (const match of text.matchAll(pattern)) {
        const target = resolve(file, match[1]!);
        if (target && !target.startsWith(path.join(src, "generated"))) targets.add(target);
      }
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Strongly connected components of more than one file (or a file importing itself): Tarjan's algorithm. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return found;
}

/**
 * ARCHITECTURE.md's folder order, top to bottom: a folder may import only folders below it (and files of its
 * own). Each of `src/app`, `src/components`, `src/client`, `src/shared` and `src/twilio-simulator` is one
 * folder, and `src/proxy.ts` (Next.js's request proxy) is its own; under `src/server` each first-level folder
 * is one, and a file at its root (main.ts, boot.ts, env.ts, logger.ts) is its own.
 */
export const FOLDER_ORDER = [
  "app",
  "proxy.ts",
  "components",
  "client",
  "server/main.ts",
  "server/boot.ts",
  "server/openapi",
  "server/rest",
  "server/listen",
  "server/trpc",
  "server/health",
  "server/engine",
  "server/workers",
  "server/services",
  "server/webhooks",
  "server/email",
  "server/jobs",
  "server/integrations",
  "server/auth",
  "server/rate-limit",
  "server/http",
  "server/db",
  "server/tracing",
  "server/metrics",
  "server/crypto",
  "server/errors",
  "server/logger.ts",
  "server/env.ts",
  "server/runtime",
  "twilio-simulator",
  "shared",
] as const;

/** The folder of a file under src/, as FOLDER_ORDER names it. */
export function folderOf(file: string): string {
  const parts = path.relative(src, file).split(path.sep);
  return parts[0] === "server" ? `server/${parts[1]}` : parts[0]!;
}

/** Every import between two folders that goes up the order (or to a folder the order does not name). */
export function upwardImports(graph: Map<string, string[]>, order: readonly string[]): string[] {
  const rank = new Map(order.map((f, i) => [f, i]));
  const found: string[] = [];
  for (const [from, targets] of graph) {
    const a = folderOf(from);
    for (const to of targets) {
      const b = folderOf(to);
      if (a === b) continue;
      const ra = rank.get(a);
      const rb = rank.get(b);
      if (ra === undefined || rb === undefined || rb <= ra)
        found.push(`${path.relative(src, from)} (${a}) imports ${path.relative(src, to)} (${b})`);
    }
  }
  return found.sort();
}

/** The same graph with each node a folder: its cycles are the folder-level cycles. */
function folderGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const a = folderOf(from);
    const set = folders.get(a) ?? new Set<string>();
    folders.set(a, set);
    for (const to of targets) if (folderOf(to) !== a) set.add(folderOf(to));
  }
  return new Map([...folders].map(([k, v]) => [k, [...v]]));
}

describe("import cycles in src/", () => {
  it("finds a cycle when there is one (the checker can fail)", () => {
    const g = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(cycles(g)).toEqual([["a", "b", "c"]]);
    expect(
      cycles(
        new Map([
          ["a", ["b"]],
          ["b", []],
        ]),
      ),
    ).toEqual([]);
  });

  it("has none between files, type-only and lazy imports counted", () => {
    const found = cycles(importGraph()).map((c) => c.map((f) => path.relative(root, f)));
    expect(found).toEqual([]);
  });

  it("has none between folders: every import goes down ARCHITECTURE.md's folder order", () => {
    const graph = importGraph();
    expect(cycles(folderGraph(graph))).toEqual([]);
    expect(upwardImports(graph, FOLDER_ORDER)).toEqual([]);
    // Every folder of src/ is in the order.
    const named = new Set<string>(FOLDER_ORDER);
    expect([...new Set([...graph.keys()].map(folderOf))].filter((f) => !named.has(f)).sort()).toEqual([]);
  });

  it("reports an import up the order (the folder check can fail)", () => {
    const f = (p: string) => path.join(src, p);
    const g = new Map([
      [f("server/services/a.ts"), [f("server/db/b.ts")]],
      [f("server/db/b.ts"), [f("server/services/a.ts")]],
    ]);
    expect(upwardImports(g, FOLDER_ORDER)).toEqual([
      "server/db/b.ts (server/db) imports server/services/a.ts (server/services)",
    ]);
    expect(cycles(folderGraph(g))).toEqual([["server/db", "server/services"]]);
  });
});
