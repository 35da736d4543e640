import { createHash } from "node:crypto";
import { env } from "@/server/env";
import { errorResponse } from "@/server/http/error-response";
import { readBody } from "@/server/http/body";
import { requestContextOf } from "@/server/http/request-context";
import type { BillingPlan } from "@/server/services/billing/billing-plan";

/**
 * The local billing pages (docs/decisions.md §4) are route handlers rather than React
 * pages because one URL must answer GET and HEAD (show, change nothing) and
 * POST (act) differently. Their HTML is small and built here, every value escaped.
 */
export class Html {
  constructor(readonly text: string) {}
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** Template tag: interpolated values are escaped unless they are Html already (arrays are joined). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  const part = (v: unknown): string =>
    v instanceof Html
      ? v.text
      : Array.isArray(v)
        ? v.map(part).join("")
        : v === null || v === undefined || v === false
          ? ""
          : escapeHtml(String(v));
  return new Html(strings.reduce((out, s, i) => out + s + (i < values.length ? part(values[i]) : ""), ""));
}

const STYLE = `
body{margin:0;font-family:ui-sans-serif,system-ui,sans-serif;background:#f8fafc;color:#0f172a}
main{max-width:32rem;margin:4rem auto;padding:0 1rem}
.card{background:#fff;border:1px solid #e2e8f0;border-radius:.75rem;padding:1.5rem;box-shadow:0 1px 2px rgba(0,0,0,.05)}
h1{font-size:1.25rem;margin:0 0 1rem}
p{line-height:1.5}
.muted{color:#64748b;font-size:.875rem}
button{font:inherit;font-weight:600;border:0;border-radius:.375rem;padding:.5rem 1rem;color:#fff;background:#4f46e5;cursor:pointer}
button.danger{background:#dc2626}
button.ok{background:#059669}
button:focus{outline:2px solid #a5b4fc;outline-offset:2px}
form{display:inline}
.actions{display:flex;gap:.75rem;align-items:center;flex-wrap:wrap;margin-top:1rem}
a{color:#4338ca}
`;

/**
 * These pages are served by route handlers, outside the proxy that nonces the React pages'
 * styles (src/proxy.ts): their one style element is allowed by its hash instead, and nothing
 * else may load. A style change changes the hash with it.
 */
const BILLING_PAGE_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`,
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export function planSentence(plan: BillingPlan): string {
  return `$${plan.monthlyBase.toFixed(2)} a month, plus $${plan.perMinuteRate} per billed minute (rounded up per call).`;
}

/** A whole page; every page links back to the dashboard. Never cached, never indexed. */
export function pageResponse(title: string, body: Html, opts: { status?: number; method?: string } = {}): Response {
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${title} · Routekit</title><style>${new Html(STYLE)}</style></head>
<body><main><div class="card"><h1>${title}</h1>${body}
<p class="muted"><a href="/dashboard" data-testid="back-to-dashboard">Back to the dashboard</a></p></div></main></body></html>`;
  const headers = {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-robots-tag": "noindex",
    "content-security-policy": BILLING_PAGE_POLICY,
  };
  return new Response(opts.method === "HEAD" ? null : page.text, { status: opts.status ?? 200, headers });
}

export function notFoundPage(method: string, what: string): Response {
  return pageResponse(
    "Link not valid",
    html`<p data-testid="billing-result">This ${what} link is invalid, has expired or has already been used. Ask for a new one from the billing page of your dashboard.</p>`,
    { status: 404, method },
  );
}

/** After an action: back to the dashboard (POST-redirect-GET). */
export function toDashboard(): Response {
  return new Response(null, {
    status: 303,
    headers: { location: `${env().publicBaseUrl}/dashboard`, "cache-control": "no-store" },
  });
}

/** Runs a page handler: the 64 KiB body rule for POSTs, and the error envelope for anything thrown. */
export async function servePage(req: Request, handle: () => Promise<Response>): Promise<Response> {
  const { requestId } = requestContextOf(req.headers);
  try {
    // The body means nothing (any body, or a form); it is read only so its size is checked.
    if (req.method === "POST") await readBody(req);
    return await handle();
  } catch (err) {
    return errorResponse(err, req, requestId);
  }
}
