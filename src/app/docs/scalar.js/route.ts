import { readFile } from "node:fs/promises";
import path from "node:path";
import { rememberPerGraph } from "@/server/runtime/remember";

export const dynamic = "force-dynamic";

/**
 * Scalar's browser bundle from node_modules: the reference needs no CDN. The
 * zod inside it probes for eval, which /docs's CSP forbids (a reported
 * violation); its eval-free path is set first, through zod's global config.
 */
const JITLESS_ZOD = "(globalThis.__zod_globalConfig ??= {}).jitless = true;\n";

export async function GET(): Promise<Response> {
  const bundle = rememberPerGraph("docs.scalarBundle", () =>
    readFile(path.join(process.cwd(), "node_modules/@scalar/api-reference/dist/browser/standalone.js"), "utf8").then((code) => JITLESS_ZOD + code),
  );
  return new Response(await bundle, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } });
}
