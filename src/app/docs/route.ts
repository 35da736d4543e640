import { DOCS_CONTENT_SECURITY_POLICY } from "@/server/http/security-headers";
import { SCALAR_CONFIGURATION } from "./scalar-configuration";

// The interactive reference (Scalar) over /api/openapi.json, served entirely by this service.
export const dynamic = "force-static";

const attribute = (value: string) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;");

// The mount point is data, not code (type application/json), so the page has no inline script for
// the policy to allow. The bar above it leads back to the dashboard; it is plain HTML, outside Scalar,
// and stays on top: Scalar offsets its own sticky parts by --scalar-custom-header-height.
const PAGE = `<!doctype html>
<html lang="en" style="--scalar-custom-header-height:41px">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Routekit API reference</title>
  </head>
  <body style="margin:0">
    <nav aria-label="Routekit" style="position:sticky;top:0;z-index:1000;box-sizing:border-box;height:41px;display:flex;gap:16px;align-items:center;padding:0 16px;border-bottom:1px solid #e2e8f0;background:#fff;font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif">
      <strong style="color:#0f172a">Routekit API reference</strong>
      <a href="/dashboard" data-testid="docs-dashboard-link" style="color:#4f46e5;font-weight:600;text-decoration:none">← Back to the dashboard</a>
    </nav>
    <script id="api-reference" type="application/json" data-url="/api/openapi.json" data-configuration="${attribute(JSON.stringify(SCALAR_CONFIGURATION))}"></script>
    <script src="/docs/scalar.js"></script>
  </body>
</html>`;

export function GET(): Response {
  return new Response(PAGE, {
    headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": DOCS_CONTENT_SECURITY_POLICY },
  });
}
