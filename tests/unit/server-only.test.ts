import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { build, type BuildOptions } from "esbuild";
import { describe, expect, it } from "vitest";

/**
 * `import "server-only"` marks a module the browser must never get: Next.js refuses to build a client
 * component that reaches one (its React Server Components resolve the package to an empty module under the
 * "react-server" condition; anywhere else the package throws). Outside Next.js nothing is a client
 * component, so everything else that runs the server's code maps the marker to that empty module:
 * tsconfig.json's `paths` (tsx scripts and benchmarks, esbuild's server bundle, Playwright) and
 * vitest.config.ts's alias. These tests show each mapping, and that the marker is a real guard.
 */
const root = path.resolve(import.meta.dirname, "../..");
const MARKED = ["src/server/env.ts", "src/server/db/client.ts", "src/server/logger.ts"];

describe('import "server-only"', () => {
  it("marks the env reader, the database client and the logger", () => {
    for (const file of MARKED)
      expect(readFileSync(path.join(root, file), "utf8"), file).toMatch(/^import "server-only";\n/);
  });

  it("throws where nothing maps it: the package is a real guard outside React Server Components", () => {
    const plain = spawnSync(process.execPath, ["--input-type=module", "-e", 'import "server-only";'], {
      cwd: root,
      encoding: "utf8",
    });
    expect(plain.status).not.toBe(0);
    expect(plain.stderr).toMatch(/cannot be imported from a Client Component module/);
    const rsc = spawnSync(
      process.execPath,
      ["--conditions=react-server", "--input-type=module", "-e", 'import "server-only";'],
      {
        cwd: root,
        encoding: "utf8",
      },
    );
    expect(rsc.status, rsc.stderr).toBe(0);
  });

  it("is the empty module in the server bundle (scripts/build-server.mjs)", async () => {
    const { serverBundle } = (await import(path.join(root, "scripts/build-server.mjs"))) as {
      serverBundle: BuildOptions;
    };
    const { entryPoints: _entry, outfile: _out, ...options } = serverBundle;
    const out = await build({
      ...options,
      absWorkingDir: root,
      stdin: { contents: 'import "server-only";\nexport const marked = true;\n', resolveDir: root, loader: "ts" },
      write: false,
      sourcemap: false,
    });
    const code = out.outputFiles[0]!.text;
    expect(code).not.toMatch(/server-only/);
    expect(code).not.toMatch(/\bimport\b/);
  });

  it("runs under tsx, as the scripts and benchmarks do", () => {
    const tsx = spawnSync(
      path.join(root, "node_modules/.bin/tsx"),
      ["--eval", 'import { env } from "./src/server/env.ts"; console.log(typeof env);'],
      { cwd: root, encoding: "utf8" },
    );
    expect(tsx.stderr).toBe("");
    expect(tsx.stdout.trim()).toBe("function");
  });

  it("runs under vitest", async () => {
    await expect(import("../../src/server/logger")).resolves.toHaveProperty("logger");
  });
});
