import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildOpenApiDocument } from "../../src/server/openapi/build-openapi";

/**
 * Writes the OpenAPI document the server serves to `openapi.json` at the root,
 * for generators and linters that want a file. `--check` fails when the
 * committed file is stale (CI runs it, then Redocly and Spectral on the file).
 */
export const OPENAPI_FILE = path.resolve(import.meta.dirname, "../../openapi.json");
export const openApiText = () => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const text = openApiText();
  if (process.argv.includes("--check")) {
    if (readFileSync(OPENAPI_FILE, "utf8") !== text) {
      console.error("openapi.json is stale: run npm run openapi and commit it");
      process.exit(1);
    }
    console.log("openapi.json is current");
  } else {
    writeFileSync(OPENAPI_FILE, text);
    console.log(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}`);
  }
}
