// Bundles the custom server (src/server/main.ts) into dist/server.mjs.
// Dependencies stay external and load from node_modules at run time; `server-only`
// is mapped to its empty module by tsconfig.json's paths, which esbuild reads.
import { build } from "esbuild";

export const serverBundle = {
  entryPoints: ["src/server/main.ts"],
  outfile: "dist/server.mjs",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
};

// Imported, it only lends its options (tests/unit/server-only.test.ts).
if (import.meta.main) {
  await build(serverBundle);
  console.log("built dist/server.mjs");
}
