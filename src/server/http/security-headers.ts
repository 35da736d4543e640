import type { ServerResponse } from "node:http";

/**
 * Security headers on every answer. API answers and files get a policy that
 * allows nothing (they are never documents); pages replace it with
 * `pageContentSecurityPolicy`, set per request by the proxy (src/proxy.ts)
 * with the nonce Next.js puts on its inline bootstrap scripts.
 */

/** For answers that are not HTML documents: nothing may load, nothing may frame them. */
export const API_CONTENT_SECURITY_POLICY =
  "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** One year, subdomains too: only ever sent when the public origin is https. */
const HSTS = "max-age=31536000; includeSubDomains";

export function securityHeaders(publicBaseUrl: string): Record<string, string> {
  const headers: Record<string, string> = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
  };
  // Over plain http the header is ignored by browsers and would only mislead.
  if (publicBaseUrl.startsWith("https://")) headers["strict-transport-security"] = HSTS;
  return headers;
}

/**
 * Sets the headers on an answer about to be served. The policy is a default
 * filled in only when the headers are written, because Next.js keeps a policy
 * already present over the one a route sets (/docs) when it serves from its cache.
 */
export function applySecurityHeaders(res: ServerResponse, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    if (!this.hasHeader("content-security-policy"))
      this.setHeader("content-security-policy", API_CONTENT_SECURITY_POLICY);
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse["writeHead"];
}

/**
 * A page's policy: scripts only ours and only with this request's nonce
 * ('strict-dynamic' lets those load the chunks they import); style elements
 * ours or nonced; style attributes (React and the charts write some) allowed,
 * as they cannot run code. `development` adds what React's dev tooling needs.
 */
export function pageContentSecurityPolicy(nonce: string, development = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    // A nonce would void 'unsafe-inline', which development's injected styles need.
    development ? "style-src 'self' 'unsafe-inline'" : `style-src 'self' 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${development ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The API reference (Scalar): its bundle injects style elements at run time and needs no inline script. */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");
