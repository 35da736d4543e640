import { DOCS_CONTENT_SECURITY_POLICY } from "@/server/http/security-headers";

// The interactive reference (Scalar) over /api/openapi.json, served entirely by this service.
export const dynamic = "force-static";

// The mount point is data, not code (type application/json), so the page has no inline script for
// the policy to allow; fonts are ours (the system's), not Scalar's CDN.
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Routekit API reference</title>
  </head>
  <body>
    <script id="api-reference" type="application/json" data-url="/api/openapi.json" data-configuration='{"withDefaultFonts":false}'></script>
    <script src="/docs/scalar.js"></script>
  </body>
</html>`;

export function GET(): Response {
  return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": DOCS_CONTENT_SECURITY_POLICY } });
}
