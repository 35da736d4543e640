import { buildOpenApiDocument } from "@/server/openapi/build-openapi";

export const dynamic = "force-dynamic";

/** The OpenAPI 3.1 reference, generated from the route table and the procedures' schemas. */
export function GET(): Response {
  return Response.json(buildOpenApiDocument(), { headers: { "cache-control": "public, max-age=300" } });
}
