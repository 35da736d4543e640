import { ENGINE_PATH_PREFIX } from "../../shared/engine-path";

/**
 * A request's route as a metric label: a template from a short fixed list,
 * never the raw path (which holds routing tokens, ids and call SIDs).
 * REST paths keep their literal segments and turn every segment that
 * looks like an id, a SID, a number or a token into `:id`.
 */
const ID_SEGMENT =
  /^(?:[A-Z]{2}[0-9a-f]{32}|c[a-z0-9]{20,}|rtk_[A-Za-z0-9_-]+|rt_[A-Za-z0-9_-]+|\+?\d[\d-]*|[A-Za-z0-9_-]{20,})$/;

export function routeLabel(url: string | undefined, status: number): string {
  const path = (url ?? "/").split("?")[0]!;
  if (path.startsWith(ENGINE_PATH_PREFIX)) {
    const query = url?.includes("?") ? url.slice(url.indexOf("?")) : "";
    return query.includes("control=") ? "engine.control" : "engine.voice";
  }
  if (path.startsWith("/api/trpc/")) return "trpc";
  if (path.startsWith("/_next/")) return "static";
  if (!path.startsWith("/api/")) return status === 404 ? "page.unknown" : "page";
  const segments = path
    .split("/")
    .slice(0, 8)
    .map((s) => (ID_SEGMENT.test(s) || s.length > 40 ? ":id" : s));
  const template = segments.join("/");
  // A 404 keeps its template only when the route has answered otherwise: a scanner's paths never become labels.
  if (status === 404) return seen.has(template) ? template : "api.unknown";
  return bounded(template);
}

/** Paths anyone can make up (a scanner's 404s): past this many distinct templates, the rest share one label. */
const MAX_TEMPLATES = 300;
const seen = new Set<string>();

function bounded(template: string): string {
  if (seen.has(template)) return template;
  if (seen.size >= MAX_TEMPLATES) return "api.other";
  seen.add(template);
  return template;
}
