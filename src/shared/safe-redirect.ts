/** Where a redirect goes when the one asked for could leave this service. */
export const DEFAULT_REDIRECT = "/dashboard";

// A stand-in origin: a value is safe when it resolves against it and stays on it.
const PROBE_ORIGIN = "http://routekit.invalid";

// Control characters, spaces and backslashes: browsers drop or rewrite them (`/\t/x` is `//x`, `/\x` is `//x`).
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job
const UNSAFE_CHARACTER = /[\u0000-\u0020\u007f-\u009f\\\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]/;

function stays(path: string): boolean {
  return path.startsWith("/") && !path.startsWith("//") && !UNSAFE_CHARACTER.test(path);
}

function decodedOnce(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

/**
 * The one redirect guard (docs/decisions.md §20): every place that redirects after a
 * form or takes `callbackUrl`/`next` sends the browser to what this returns.
 * It answers a path of this service, normalised the way a browser would
 * resolve it (dot segments removed), or `/dashboard` for anything a browser
 * could read as another origin: `//host`, `/\host`, `/.//host`, `/%2e//host`,
 * `/..//host`, tabs and newlines, absolute and `javascript:` URLs, and the
 * same once percent-decoded (a value that still decodes to one of those is
 * refused, since some later step may decode it). `origin`, when given, lets an
 * absolute URL on this service through as its path.
 */
export function safeRedirectPath(raw: unknown, opts: { origin?: string } = {}): string {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 2048) return DEFAULT_REDIRECT;
  let candidate = raw;
  if (opts.origin && !raw.startsWith("/")) {
    try {
      const absolute = new URL(raw);
      if (absolute.origin !== new URL(opts.origin).origin || UNSAFE_CHARACTER.test(raw)) return DEFAULT_REDIRECT;
      candidate = absolute.pathname + absolute.search + absolute.hash;
    } catch {
      return DEFAULT_REDIRECT;
    }
  }
  if (!stays(candidate)) return DEFAULT_REDIRECT;
  let resolved: URL;
  try {
    resolved = new URL(candidate, PROBE_ORIGIN);
  } catch {
    return DEFAULT_REDIRECT;
  }
  if (resolved.origin !== PROBE_ORIGIN) return DEFAULT_REDIRECT;
  const path = resolved.pathname + resolved.search + resolved.hash;
  if (!stays(path)) return DEFAULT_REDIRECT;
  // The path once decoded must stay too: `/%2F%2Fevil` or `/%5Cevil` means another origin to anything that decodes it.
  const decodedPath = decodedOnce(resolved.pathname);
  if (decodedPath === null || !stays(decodedPath)) return DEFAULT_REDIRECT;
  const reresolved = new URL(decodedPath, PROBE_ORIGIN);
  if (reresolved.origin !== PROBE_ORIGIN || !stays(reresolved.pathname)) return DEFAULT_REDIRECT;
  return path;
}
