import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { inject } from "vitest";

/**
 * Every response a test receives is checked against the OpenAPI document the
 * server serves, for its operation and status: a field added, renamed or
 * dropped, or a status nobody documented, fails the build.
 */
type Operation = { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> };
type Webhook = { post: { requestBody: { content: { "application/json": { schema: Record<string, unknown> } } } } };
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Webhook>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

let loaded: Promise<{ doc: Doc; routes: { pattern: RegExp; template: string }[] }> | undefined;
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
const compiled = new Map<string, ValidateFunction>();

function load() {
  return (loaded ??= fetch(`${inject("baseUrl")}/api/openapi.json`)
    .then((r) => r.json() as Promise<Doc>)
    .then((doc) => {
      ajv.addSchema({ $id: "openapi.json", components: doc.components });
      return doc;
    })
    .then((doc) => ({
      doc,
      routes: Object.keys(doc.paths).map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}/?$`),
      })),
    })));
}

/** The document's components are added to Ajv once (as `openapi.json`): `$ref`s (PhoneNumber, Call, …) resolve at any depth. */
function deref(schema: Record<string, unknown>): Record<string, unknown> {
  const ref = schema.$ref;
  return typeof ref === "string" ? { $ref: `openapi.json${ref}` } : schema;
}

export async function checkContract(method: string, url: string, status: number, body: unknown): Promise<void> {
  const { doc, routes } = await load();
  const path = new URL(url, "http://x").pathname;
  const route = routes.find((r) => r.pattern.test(path));
  const op = route && doc.paths[route.template]![method.toLowerCase()];
  if (!route || !op) return; // not part of the documented API (pages, the engine, unknown paths)
  const response = op.responses[String(status)];
  if (!response)
    throw new Error(
      `contract: ${method} ${route.template} answered ${status}, which the OpenAPI document does not list`,
    );
  const schema = response.content?.["application/json"]?.schema;
  if (!schema) return;
  const key = `${method} ${route.template} ${status}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(deref(schema));
    compiled.set(key, validate);
  }
  if (!validate(body))
    throw new Error(
      `contract: ${key} body does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
    );
}

/** Checks an event body (as a receiver got it) against the served document's `webhooks` entry for its type. */
export async function checkEventContract(event: { type: string }): Promise<void> {
  const { doc } = await load();
  const hook = doc.webhooks[event.type];
  if (!hook) throw new Error(`contract: the OpenAPI document has no webhook ${event.type}`);
  const key = `webhook ${event.type}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(deref(hook.post.requestBody.content["application/json"].schema));
    compiled.set(key, validate);
  }
  if (!validate(event))
    throw new Error(
      `contract: ${key} body does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(event).slice(0, 500)}`,
    );
}
