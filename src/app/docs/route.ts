// The interactive reference (Scalar) over /api/openapi.json, served entirely by this service.
export const dynamic = "force-static";

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Routekit API reference</title>
  </head>
  <body>
    <script id="api-reference" data-url="/api/openapi.json"></script>
    <script src="/docs/scalar.js"></script>
  </body>
</html>`;

export function GET(): Response {
  return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
}
