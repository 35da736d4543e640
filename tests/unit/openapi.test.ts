import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../src/server/openapi/build-openapi";
import { restRoutes } from "../../src/server/rest/routes";
import { OPENAPI_FILE, openApiText } from "../../scripts/openapi/write-openapi";
import { readFileSync } from "node:fs";

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        responses: Record<string, { content?: Record<string, { schema: unknown; example?: unknown }> }>;
        requestBody?: { content: Record<string, { schema: unknown; example?: unknown }> };
      }
    >
  >;
  components: { schemas: Record<string, unknown> };
  webhooks: Record<
    string,
    { post: { requestBody: { content: Record<string, { schema: unknown; example?: unknown }> } } }
  >;
};
const doc = buildOpenApiDocument() as unknown as Doc;
const toOpenApiPath = (p: string) => p.replace(/:(\w+)/g, "{$1}");
/** An Ajv that knows the document's components once: operations and resources point at components.schemas by $ref. */
const ajvWithDoc = () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: "openapi.json", components: doc.components });
  return ajv;
};
const deref = (schema: unknown) => {
  const ref = (schema as { $ref?: string }).$ref;
  return ref ? { $ref: `openapi.json${ref}` } : (schema as object);
};

describe("OpenAPI document", () => {
  it("is valid OpenAPI 3.1", async () => {
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect((doc as unknown as { openapi: string }).openapi).toBe("3.1.0");
  });

  it("documents every route of the REST table with its method and success status", () => {
    for (const route of restRoutes) {
      const op = doc.paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(Object.keys(op!.responses)).toContain(String(route.status));
    }
  });

  it("documents nothing that the REST table does not serve", () => {
    const served = new Set(restRoutes.map((r) => `${r.method.toLowerCase()} ${toOpenApiPath(r.path)}`));
    for (const [path, ops] of Object.entries(doc.paths))
      for (const method of Object.keys(ops)) expect(served.has(`${method} ${path}`), `${method} ${path}`).toBe(true);
  });

  it("lists 503 SERVICE_UNAVAILABLE with Retry-After on every operation that uses the database (docs/decisions.md §3)", () => {
    const pure = new Set(
      restRoutes.filter((r) => r.database === false).map((r) => `${r.method.toLowerCase()} ${toOpenApiPath(r.path)}`),
    );
    // Only the liveness probe touches nothing; anything else claiming so must be looked at.
    expect([...pure]).toEqual(["get /api/health"]);
    let walked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        walked++;
        const name = `${method} ${path}`;
        const answer = op.responses["503"] as
          | {
              headers?: Record<string, { schema: { type: string } }>;
              content?: Record<string, { example?: { error: { code: string } } }>;
            }
          | undefined;
        if (pure.has(name)) {
          expect(answer, name).toBeUndefined();
          continue;
        }
        expect(answer, `${name} lacks 503`).toBeDefined();
        expect(answer!.headers?.["Retry-After"]?.schema.type, `${name}: 503 without Retry-After`).toBe("integer");
        expect(answer!.content?.["application/json"]?.example?.error.code, name).toBe("SERVICE_UNAVAILABLE");
      }
    }
    expect(walked).toBe(restRoutes.length);
  });

  it("names every request and response schema after its operation, and tags every operation with a described tag", () => {
    const described = new Set(
      (doc as unknown as { tags: { name: string; description: string }[] }).tags
        .filter((t) => t.description)
        .map((t) => t.name),
    );
    for (const route of restRoutes) {
      const op = doc.paths[toOpenApiPath(route.path)]![route.method.toLowerCase()]! as unknown as {
        tags: string[];
        description: string;
        responses: Record<
          string,
          { content?: Record<string, { schema: { $ref?: string } }>; headers?: Record<string, unknown> }
        >;
        requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
      };
      expect(op.responses[String(route.status)]!.content!["application/json"]!.schema.$ref).toMatch(
        /^#\/components\/schemas\/\w+Response$/,
      );
      if (op.requestBody) expect(op.requestBody.content["application/json"]!.schema.$ref).toMatch(/Request$/);
      expect(
        op.tags.every((t) => described.has(t)),
        route.path,
      ).toBe(true);
      expect(op.description.length).toBeGreaterThan(route.summary.length);
      for (const [status, response] of Object.entries(op.responses))
        expect(response.headers?.["x-request-id"], `${route.path} ${status}`).toBeDefined();
    }
  });

  it("is committed as openapi.json, current (npm run openapi writes it)", () => {
    expect(readFileSync(OPENAPI_FILE, "utf8") === openApiText(), "openapi.json is stale: run npm run openapi").toBe(
      true,
    );
  });

  it("has every event as a webhook", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([
      "alert.delivery_exhausted",
      "alert.endpoint_failing",
      "alert.endpoint_recovered",
      "alert.fallback_rate",
      "alert.fallback_rate_recovered",
      "alert.number_unconfigured",
      "alert.payment_failed",
      "alert.twilio_credentials_rejected",
      "call.answered",
      "call.ended",
      "call.error",
      "call.ringing",
      "call.started",
      "call.transfer_failed",
      "call.transferred",
      "recording.completed",
      "recording.failed",
      "usage.threshold_reached",
    ]);
  });

  // The examples are typed by their schemas where each route declares them; this checks what types cannot (patterns, bounds).
  it("has an example for every endpoint, and every example matches its schema", () => {
    const ajv = ajvWithDoc();
    for (const route of restRoutes) {
      const name = `${route.method} ${route.path}`;
      const op = doc.paths[toOpenApiPath(route.path)]![route.method.toLowerCase()]!;
      const ok = op.responses[String(route.status)]!.content!["application/json"]!;
      expect(ok.example, `${name} response example`).toBeDefined();
      expect(ajv.validate(deref(ok.schema) as object, ok.example), `${name} response: ${ajv.errorsText()}`).toBe(true);
      const body = op.requestBody?.content["application/json"];
      if (body?.example !== undefined)
        expect(ajv.validate(deref(body.schema) as object, body.example), `${name} request: ${ajv.errorsText()}`).toBe(
          true,
        );
    }
  });

  it("has an example for every event, and every example matches its schema", () => {
    const ajv = ajvWithDoc();
    for (const [type, webhook] of Object.entries(doc.webhooks)) {
      const body = webhook.post.requestBody.content["application/json"]!;
      expect(body.example, `${type} example`).toBeDefined();
      expect((body.example as { type?: string }).type, `${type} example's type`).toBe(type);
      expect(ajv.validate(deref(body.schema) as object, body.example), `${type}: ${ajv.errorsText()}`).toBe(true);
    }
  });
});
