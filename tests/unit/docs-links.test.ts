import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The documentation is split over many files that link to each other; a moved
// section or a renamed heading must fail here, not leave a newcomer at a 404.
const root = path.resolve(import.meta.dirname, "../..");

function markdownFiles(): string[] {
  const top = readdirSync(root).filter((f) => f.endsWith(".md"));
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = path.join(dir, f);
      return statSync(p).isDirectory() ? walk(p) : f.endsWith(".md") ? [p] : [];
    });
  return [...top.map((f) => path.join(root, f)), ...walk(path.join(root, "docs"))];
}

/** The text outside fenced blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const match of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = (match[1] ?? "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  for (const match of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1] ?? "");
  return anchors;
}

/** Every relative link of a file that points at nothing: a missing file, or a missing heading in a Markdown file. */
export function brokenLinks(file: string, markdown: string, read: (p: string) => string | null): string[] {
  const broken: string[] = [];
  for (const match of prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1] ?? "";
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
    const resolved = pathPart ? path.resolve(path.dirname(file), decodeURI(pathPart)) : file;
    const text = read(resolved);
    if (text === null) {
      broken.push(`${target} (no such file)`);
      continue;
    }
    if (anchor && resolved.endsWith(".md") && !anchorsOf(text).has(anchor)) broken.push(`${target} (no such heading)`);
  }
  return broken;
}

function readIfExists(p: string): string | null {
  if (!existsSync(p)) return null;
  return statSync(p).isDirectory() ? "" : readFileSync(p, "utf8");
}

describe("documentation links", () => {
  const files = markdownFiles();

  it("finds the documents it promises to check", () => {
    const names = files.map((f) => path.relative(root, f));
    for (const name of [
      "README.md",
      "ARCHITECTURE.md",
      "CONTRIBUTING.md",
      "docs/decisions.md",
      "docs/api.md",
      "docs/adr/README.md",
    ]) {
      expect(names).toContain(name);
    }
  });

  it.each(files.map((f) => [path.relative(root, f), f]))(
    "%s links only to files and headings that exist",
    (_name, file) => {
      expect(brokenLinks(file, readFileSync(file, "utf8"), readIfExists)).toEqual([]);
    },
  );

  it("tells a broken link from a good one (the check itself can fail)", () => {
    const docs: Record<string, string> = {
      "/d/a.md":
        "# A\n\n## Errors and limits\n\n[ok](b.md#b-one) [self](#errors-and-limits) [gone](c.md) [no heading](b.md#nope)\n\n`[code](x.md)`\n\n```\n[fenced](y.md)\n```\n[web](https://example.com/x.md)",
      "/d/b.md": '# B one\n<a id="custom"></a>',
    };
    const read = (p: string) => docs[p] ?? null;
    expect(brokenLinks("/d/a.md", docs["/d/a.md"]!, read)).toEqual([
      "c.md (no such file)",
      "b.md#nope (no such heading)",
    ]);
    expect(anchorsOf("## 1. Connect Twilio (recommended)\n## Retrying safely (`Idempotency-Key`)\n## X\n## X")).toEqual(
      new Set(["1-connect-twilio-recommended", "retrying-safely-idempotency-key", "x", "x-1"]),
    );
    expect(anchorsOf(docs["/d/b.md"]!).has("custom")).toBe(true);
  });
});
