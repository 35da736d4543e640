import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// ARCHITECTURE.md's "Where each thing lives" is how a newcomer finds a folder; a folder it leaves out is a
// folder nobody finds, and a row for a folder that moved sends them nowhere. So the table is checked against
// the tree, and the ADR count in the prose against docs/adr/.
const root = path.resolve(import.meta.dirname, "../..");

type Row = { keys: string[]; text: string };

/** The rows of the table under `## Where each thing lives`: the paths of the first cell, and the whole row. */
export function tableRows(markdown: string): Row[] {
  const section = markdown.split(/^## Where each thing lives\s*$/m)[1]?.split(/^## /m)[0] ?? "";
  const rows: Row[] = [];
  for (const line of section.split("\n")) {
    if (!line.startsWith("|") || /^\|\s*-/.test(line) || /^\|\s*Directory\s*\|/.test(line)) continue;
    const first = line.split("|")[1] ?? "";
    const keys: string[] = [];
    for (const [, token] of first.matchAll(/`([^`]+)`/g)) {
      // `src/server/main.ts`, `boot.ts`: a bare name is beside the path before it.
      const key = token!.includes("/") || keys.length === 0 ? token! : `${path.posix.dirname(keys.at(-1)!)}/${token}`;
      keys.push(key.replace(/\/$/, ""));
    }
    rows.push({ keys, text: line });
  }
  return rows;
}

/** The backticked names of a row, each cut into its path segments. */
function namesIn(text: string): string[][] {
  return [...text.matchAll(/`([^`]+)`/g)].map(([, token]) => token!.split("/").filter(Boolean));
}

/** Whether `segments` occur one after the other in some name of the row. */
function named(text: string, segments: string[]): boolean {
  return namesIn(text).some((name) => name.some((_, i) => segments.every((segment, j) => name[i + j] === segment)));
}

/**
 * The folders the table does not account for. A folder directly under `src/server` has a row of its own; one
 * directly under `src/server/services` has a row or is named in the services row; a folder deeper down is named,
 * by its path from that row's folder (`sql/`, `calls/control/`), in the row of its nearest ancestor that has one.
 */
export function unlistedFolders(rows: Row[], folders: string[]): string[] {
  const rowOf = new Map<string, Row>();
  for (const row of rows) for (const key of row.keys) rowOf.set(key, row);
  const missing: string[] = [];
  for (const folder of folders) {
    const parts = folder.split("/");
    if (rowOf.has(folder)) continue;
    if (parts.length === 3) {
      missing.push(folder); // src/server/<name>
      continue;
    }
    let ancestor = parts.length - 1;
    while (ancestor > 2 && !rowOf.has(parts.slice(0, ancestor).join("/"))) ancestor--;
    const row = rowOf.get(parts.slice(0, ancestor).join("/"));
    if (!row || !named(row.text, parts.slice(ancestor))) missing.push(folder);
  }
  return missing;
}

/** Every folder under `dir`, as a path from the repository's root. */
function foldersUnder(dir: string): string[] {
  return readdirSync(path.join(root, dir))
    .filter((name) => statSync(path.join(root, dir, name)).isDirectory())
    .flatMap((name) => [`${dir}/${name}`, ...foldersUnder(`${dir}/${name}`)]);
}

const NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
const NUMBER_WORDS_RE = new RegExp(`\\b(${NUMBER_WORDS.slice(1).join("|")}|\\d+)\\s+places\\b`, "gi");

/** Each "in N places" a document says of the ADRs, as a number. */
export function adrCountsSaid(markdown: string): number[] {
  return [...markdown.matchAll(NUMBER_WORDS_RE)].map(([, word]) =>
    /^\d+$/.test(word!) ? Number(word) : NUMBER_WORDS.indexOf(word!.toLowerCase()),
  );
}

describe("ARCHITECTURE.md's folder table", () => {
  const rows = tableRows(readFileSync(path.join(root, "ARCHITECTURE.md"), "utf8"));

  it("lists every folder of src/server, src/server/services included, at every depth", () => {
    expect(unlistedFolders(rows, foldersUnder("src/server"))).toEqual([]);
  });

  it("names only paths that exist", () => {
    const named = rows.flatMap((row) => row.keys).filter((key) => /^(src|tests|scripts|prisma|bench|e2e)\b/.test(key));
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((key) => !existsSync(path.join(root, key)))).toEqual([]);
  });

  it("catches a missing folder, a stale row and a nested folder named from the wrong row (the check can fail)", () => {
    const table = [
      "## Where each thing lives",
      "",
      "| Directory | What is there |",
      "|---|---|",
      "| `src/server/main.ts`, `boot.ts` | The server. |",
      "| `src/server/engine` | The engine; `sql/` its statements. |",
      "| `src/server/services` | `accounts`, `calls` (and `control/`), `billing` (`billing/stripe-events/`). |",
      "",
      "## Next",
    ].join("\n");
    const parsed = tableRows(table);
    expect(parsed.map((row) => row.keys)).toEqual([
      ["src/server/main.ts", "src/server/boot.ts"],
      ["src/server/engine"],
      ["src/server/services"],
    ]);
    expect(
      unlistedFolders(parsed, [
        "src/server/engine",
        "src/server/engine/sql",
        "src/server/engine/control",
        "src/server/health",
        "src/server/services",
        "src/server/services/accounts",
        "src/server/services/alerts",
        "src/server/services/calls",
        "src/server/services/calls/control",
        "src/server/services/billing",
        "src/server/services/billing/stripe-events",
      ]),
    ).toEqual([
      "src/server/engine/control",
      "src/server/health",
      "src/server/services/alerts",
      "src/server/services/calls/control",
    ]);
  });
});

describe("the ADR count the documents give", () => {
  const adrs = readdirSync(path.join(root, "docs/adr")).filter((name) => /^\d{4}-.+\.md$/.test(name));

  it.each(["ARCHITECTURE.md", "README.md"])("%s says as many places as docs/adr/ has records", (file) => {
    const said = adrCountsSaid(readFileSync(path.join(root, file), "utf8"));
    expect(said.length).toBeGreaterThan(0);
    expect(said).toEqual(said.map(() => adrs.length));
  });

  it("reads the count in words or digits", () => {
    expect(adrCountsSaid("leaves the usual path in eight places; in 12 places")).toEqual([8, 12]);
  });
});
