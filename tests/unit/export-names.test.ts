import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { ModifierFlags, type Node, type SourceFile, SyntaxKind } from "typescript/unstable/ast";
import { API } from "typescript/unstable/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Two exported functions with one name are two meanings behind one word: a search finds both, an auto-import
// picks either, and a reader of `simulateInboundCall(…)` cannot tell which of them runs. So no two files of src/
// export a function (or a class, or a component) under the same name. The files are read with TypeScript's own
// parser (the compiler's API), so strings, comments and templates cannot fool the check.
const root = path.resolve(import.meta.dirname, "../..");
const src = path.join(root, "src");

/** Exports whose names Next.js fixes: every route handler is `GET`, every page may declare `generateMetadata`. */
const NEXT_EXPORTS = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
  "generateMetadata",
  "generateStaticParams",
  "generateViewport",
  "generateImageMetadata",
  "generateSitemaps",
  "proxy",
]);

/**
 * Names shared today in files this check's author could not change, each with where it is and who fixes it. The
 * list only shrinks: a new duplicate fails here whoever adds it.
 */
const KNOWN_DUPLICATES: Record<string, string> = {};

export type ExportedFunction = { name: string; file: string };

function isFunctionValue(node: Node | undefined): boolean {
  return (
    node?.kind === SyntaxKind.ArrowFunction ||
    node?.kind === SyntaxKind.FunctionExpression ||
    node?.kind === SyntaxKind.ClassExpression
  );
}

/** The functions and classes a file exports by name, and the name of its default export when it has one. */
export function exportedFunctions(file: SourceFile, relative: string): ExportedFunction[] {
  const local = new Set<string>(); // functions and classes declared at the top level, exported or not
  const found: ExportedFunction[] = [];
  const add = (name: string) => {
    if (relative.startsWith("src/app/") || relative === "src/proxy.ts") {
      if (NEXT_EXPORTS.has(name)) return;
    }
    found.push({ name, file: relative });
  };
  for (const statement of file.statements) {
    const flags = (statement as { modifierFlags?: ModifierFlags }).modifierFlags ?? 0;
    const exported = (flags & ModifierFlags.Export) !== 0;
    if (statement.kind === SyntaxKind.FunctionDeclaration || statement.kind === SyntaxKind.ClassDeclaration) {
      const name = (statement as unknown as { name?: { text: string } }).name?.text;
      if (name) local.add(name);
      if (exported && name) add(name);
    } else if (statement.kind === SyntaxKind.VariableStatement) {
      const list = (
        statement as unknown as {
          declarationList: { declarations: { name: Node & { text?: string }; initializer?: Node }[] };
        }
      ).declarationList;
      for (const declaration of list.declarations) {
        let value = declaration.initializer;
        // `export const X = memo(function X() {…})`, `forwardRef((…) => …)`: the function inside one call.
        if (value?.kind === SyntaxKind.CallExpression) value = (value as unknown as { arguments: Node[] }).arguments[0];
        while (value?.kind === SyntaxKind.AsExpression || value?.kind === SyntaxKind.SatisfiesExpression) {
          value = (value as unknown as { expression: Node }).expression;
        }
        const name = declaration.name.kind === SyntaxKind.Identifier ? declaration.name.text : undefined;
        if (!name || !isFunctionValue(value)) continue;
        local.add(name);
        if (exported) add(name);
      }
    }
  }
  // `export { handle as POST }` of a function declared above (re-exports `… from "./x"` name a function that is
  // counted where it is declared).
  for (const statement of file.statements) {
    if (statement.kind !== SyntaxKind.ExportDeclaration) continue;
    const declaration = statement as unknown as {
      isTypeOnly: boolean;
      moduleSpecifier?: Node;
      exportClause?: { kind: SyntaxKind; elements?: { name: { text: string }; propertyName?: { text: string } }[] };
    };
    if (declaration.isTypeOnly || declaration.moduleSpecifier || !declaration.exportClause?.elements) continue;
    for (const element of declaration.exportClause.elements) {
      if (local.has((element.propertyName ?? element.name).text)) add(element.name.text);
    }
  }
  return found;
}

/** Every name exported by more than one file, with the files. */
export function duplicates(exports: ExportedFunction[]): Record<string, string[]> {
  const files = new Map<string, string[]>();
  for (const { name, file } of exports) files.set(name, [...(files.get(name) ?? []), file]);
  return Object.fromEntries(
    [...files].filter(([, where]) => where.length > 1).map(([name, where]) => [name, where.sort()]),
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return full === path.join(src, "generated") ? [] : sourceFiles(full);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [full] : [];
  });
}

describe("exported function names", () => {
  let api: API;
  let parse: (file: string) => SourceFile;

  beforeAll(() => {
    api = new API({ cwd: root });
    const snapshot = api.updateSnapshot({ openProjects: [path.join(root, "tsconfig.json")] });
    const project = snapshot.getProject(path.join(root, "tsconfig.json"));
    if (!project) throw new Error("TypeScript did not open tsconfig.json");
    parse = (file) => {
      const parsed = project.program.getSourceFile(file);
      if (!parsed) throw new Error(`${file} is not in tsconfig.json's program`);
      return parsed;
    };
  }, 60_000);
  afterAll(() => api?.close());

  it("are each exported from one file of src/ only", () => {
    const all = sourceFiles(src).flatMap((file) => exportedFunctions(parse(file), path.relative(root, file)));
    expect(all.length).toBeGreaterThan(300);
    const shared = duplicates(all);
    const unknown = Object.fromEntries(Object.entries(shared).filter(([name]) => !(name in KNOWN_DUPLICATES)));
    expect(unknown).toEqual({});
    // A name fixed since it was listed leaves the list, so the list cannot hide a new file reusing it.
    expect(Object.keys(KNOWN_DUPLICATES).filter((name) => !(name in shared))).toEqual([]);
  });

  it("tells a shared name from a distinct one, and leaves Next.js's fixed names alone (the check can fail)", () => {
    const fixture = path.join(root, "tests/unit/fixtures/export-names.ts");
    const found = exportedFunctions(parse(fixture), "src/server/somewhere.ts");
    expect(found.map((f) => f.name).sort()).toEqual(
      ["Component", "GET", "Wrapped", "arrow", "declared", "renamed", "typed"].sort(),
    );
    expect(exportedFunctions(parse(fixture), "src/app/api/x/route.ts").map((f) => f.name)).not.toContain("GET");
    expect(
      duplicates([
        { name: "simulateInboundCall", file: "src/twilio-simulator/call-playback.ts" },
        { name: "simulateInboundCall", file: "src/server/engine/simulate-call.ts" },
        { name: "finishCall", file: "src/server/services/calls/finish-call.ts" },
      ]),
    ).toEqual({
      simulateInboundCall: ["src/server/engine/simulate-call.ts", "src/twilio-simulator/call-playback.ts"],
    });
  });
});
