import { Routekit } from "@routekit/sdk";
import { randomIp } from "./api";
import { checkContract } from "./contract";

/** Operations as `METHOD /path/{template}`, the key the route-coverage test compares. */
export type CalledRoutes = Set<string>;

type Doc = { paths: Record<string, Record<string, unknown>> };

/** Every operation of the document a server serves, as `METHOD /path/{template}`. */
export async function documentedRoutes(baseUrl: string): Promise<string[]> {
  const doc = (await (await fetch(`${baseUrl}/api/openapi.json`)).json()) as Doc;
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => ["get", "post", "put", "patch", "delete"].includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}

/**
 * The built SDK (`@routekit/sdk` resolves to sdk/dist) on a test server, from a client address of its own (the
 * servers trust x-forwarded-for): every answer is checked against the served OpenAPI document, and each
 * request is noted in `called` by its route template.
 */
export function sdkClient(opts: { baseUrl: string; apiKey?: string; ip?: string; called?: CalledRoutes }): Routekit {
  const ip = opts.ip ?? randomIp();
  return new Routekit({
    baseUrl: opts.baseUrl,
    apiKey: opts.apiKey,
    async fetch(request) {
      request.headers.set("x-forwarded-for", ip);
      const response = await fetch(request);
      const text = await response.clone().text();
      await checkContract(request.method, request.url, response.status, text ? JSON.parse(text) : undefined);
      opts.called?.add(`${request.method} ${routeTemplate(new URL(request.url).pathname)}`);
      return response;
    },
  });
}

let templates: { template: string; pattern: RegExp }[] = [];
/** Loads the route templates (documentedRoutes' answer) for `called`; literal segments win over parameters. */
export function useTemplates(routes: string[]): void {
  const params = (t: string) => t.split("{").length;
  templates = [...new Set(routes.map((r) => r.slice(r.indexOf(" ") + 1)))]
    .sort((a, b) => params(a) - params(b))
    .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`) }));
}
function routeTemplate(path: string): string {
  return templates.find((t) => t.pattern.test(path))?.template ?? path;
}
