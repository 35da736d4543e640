import type { HttpMethod, RestRoute } from "./routes";

export type RouteMatch =
  | { kind: "found"; route: RestRoute; params: Record<string, string> }
  | { kind: "method-not-allowed"; allow: HttpMethod[] }
  | { kind: "not-found" };

/** Each pattern's segments, split once: the table is fixed, the path comes with every request. */
const segmentsOf = new Map<string, string[]>();
function patternSegments(pattern: string): string[] {
  let segments = segmentsOf.get(pattern);
  if (!segments) segmentsOf.set(pattern, (segments = pattern.split("/")));
  return segments;
}

function matchPath(pattern: string, got: string[]): Record<string, string> | null {
  const want = patternSegments(pattern);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(":")) {
      if (!g) return null;
      try {
        params[w.slice(1)] = decodeURIComponent(g);
      } catch {
        return null;
      }
    } else if (w !== g) return null;
  }
  return params;
}

/**
 * Path first, then method: a known path with the wrong method is a 405, not a
 * 404. A literal segment beats a parameter (`/test` before `/:id`), so the
 * table's order does not decide which route answers.
 */
export function matchRoute(routes: readonly RestRoute[], method: string, pathname: string): RouteMatch {
  const allow: HttpMethod[] = [];
  const got = pathname.replace(/\/+$/, "").split("/");
  let best: { route: RestRoute; params: Record<string, string> } | undefined;
  for (const route of routes) {
    const params = matchPath(route.path, got);
    if (!params) continue;
    if (route.method === method || (method === "HEAD" && route.method === "GET")) {
      if (!best || Object.keys(params).length < Object.keys(best.params).length) best = { route, params };
    } else allow.push(route.method);
  }
  if (best) return { kind: "found", ...best };
  return allow.length ? { kind: "method-not-allowed", allow } : { kind: "not-found" };
}
