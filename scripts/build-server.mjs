// Bundles the custom server (src/server/main.ts) into dist/server.mjs.
// Dependencies stay external and load from node_modules at run time.
import { build } from "esbuild";

await build({
  entryPoints: ["src/server/main.ts"],
  outfile: "dist/server.mjs",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
});
console.log("built dist/server.mjs");
