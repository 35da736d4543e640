import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The docs name files as code (`tests/support/api.ts`) far more often than they link them, and a moved file
// leaves such a name pointing nowhere: the support folder's move left three in CONTRIBUTING.md, and a renamed
// function's file one in decisions.md. docs-links.test.ts checks links; this checks the names.
const root = path.resolve(import.meta.dirname, "../..");
const TOP = /^(src|tests|scripts|bench|e2e|prisma|ops|docs)\//;

/** The repository paths a Markdown text names in inline code: from a top folder, without a placeholder. */
export function namedPaths(markdown: string): string[] {
  const paths = new Set<string>();
  for (const [, token] of markdown.matchAll(/`([^`\s]+)`/g)) {
    if (!TOP.test(token!) || /[<>*…{}$|]/.test(token!)) continue;
    paths.add(token!.replace(/[#:].*$/, "").replace(/\/$/, ""));
  }
  return [...paths];
}

function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = path.join(dir, f);
      return statSync(p).isDirectory() ? walk(p) : f.endsWith(".md") ? [p] : [];
    });
  // CHANGELOG.md is history: it names files as they were when the change landed.
  const top = readdirSync(root).filter((f) => f.endsWith(".md") && f !== "CHANGELOG.md");
  return [...top.map((f) => path.join(root, f)), ...walk(path.join(root, "docs"))];
}

describe("paths the documentation names", () => {
  it.each(markdownFiles().map((f) => [path.relative(root, f), f]))(
    "%s names only files and folders that exist",
    (_, file) => {
      const missing = namedPaths(readFileSync(file, "utf8")).filter((p) => !existsSync(path.join(root, p)));
      expect(missing).toEqual([]);
    },
  );

  it("reads a path out of inline code, and leaves patterns and other code alone (the check can fail)", () => {
    expect(
      namedPaths(
        "`tests/support/api.ts` and `src/server/engine/` and `src/app/page.tsx:12`, not `jobs/definitions/<job>.ts`, " +
          "`src/**/*.ts`, `npm run check` or `engine/sql/lookup.ts`",
      ),
    ).toEqual(["tests/support/api.ts", "src/server/engine", "src/app/page.tsx"]);
  });
});
