import { z } from "zod";
import { DEFAULT_MESSAGE, ERROR_STATUS, type ErrorCode } from "../errors/error-codes";
import { restRoutes, type RestRoute } from "../rest/routes";
import { ZEventEnvelope } from "../schemas/events";
import { ROUTE_EXAMPLES, exampleKey } from "./examples";

/**
 * The OpenAPI 3.1 document, generated from the REST route table and the zod
 * schemas of the procedures behind it: there is no hand-written copy to drift.
 */
type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}

/** The API guide's table of error codes and their statuses. */
const ERROR_TABLE_LINK = "docs/api.md#errors";
const CODES = (Object.keys(ERROR_STATUS) as ErrorCode[]).map((c) => `\`${c}\` (${ERROR_STATUS[c]})`).join(", ");

const ERROR_ENVELOPE = z.object({
  error: z
    .object({
      code: z
        .enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]])
        .describe(
          `What went wrong, for programs: ${CODES}. Each is explained in the API guide's error table (${ERROR_TABLE_LINK}).`,
        ),
      message: z.string().describe("What went wrong, for people; never a stack trace or SQL"),
      details: z
        .array(
          z.object({
            path: z.string().describe("The field, query parameter or header at fault, e.g. onCallStartUrl"),
            message: z.string().describe("What is wrong with it"),
          }),
        )
        .optional()
        .describe("Validation errors only: one entry per field at fault"),
    })
    .describe("The one error envelope of every /api answer; the x-request-id header finds it in our logs"),
});

const STATUS_TEXT: Record<number, string> = {
  400: "Invalid request",
  401: "Missing or invalid API key or token",
  402: "Payment required: complete checkout",
  403: "Forbidden: account suspended, number not owned, unverified number limit reached, or invalid signature",
  404: "Not found",
  409: "Conflict",
  413: "Body over 64 KiB",
  422: "Idempotency-Key reused with another request body",
  429: "Rate limited (see Retry-After)",
  500: "Internal error",
  502: "Provider unavailable",
  503: "Service unavailable: the database cannot be reached right now; nothing was done, retry after Retry-After seconds",
};

const IDEMPOTENCY_KEY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]+$" },
  description:
    "Retry safely: the same key with the same body within 24 hours replays the first answer (status and body, with header `idempotent-replayed: true`) and does nothing again; another body → 422 IDEMPOTENCY_KEY_REUSED; while the first is still running → 409 IDEMPOTENCY_IN_PROGRESS. A 4xx answer is replayed too; after a 5xx the key is released so a retry runs. Keys are per account (per client address for register and login).",
};

function errorStatuses(route: RestRoute, hasInput: boolean): number[] {
  const statuses = new Set<number>([500, ...(route.errors ?? [])]);
  if (hasInput) statuses.add(400);
  if (route.method !== "GET" && route.method !== "DELETE") statuses.add(413);
  if (route.auth) [401, 429].forEach((s) => statuses.add(s));
  if (route.procedure.startsWith("auth.")) statuses.add(429);
  // docs/decisions.md §3: a route that needs the database answers 503 "try again" while it is unreachable.
  if (route.database !== false) statuses.add(503);
  if (route.path.includes(":")) statuses.add(404);
  // Idempotency-Key (docs/decisions.md §11): still running, or reused with another body.
  if (route.method === "POST") [409, 422].forEach((s) => statuses.add(s));
  return [...statuses].sort();
}

function errorExample(status: number, route: RestRoute) {
  // A POST without a 409 of its own shows the idempotency one.
  const own =
    status === 409 && route.method === "POST" && !(route.errors ?? []).includes(409)
      ? "IDEMPOTENCY_IN_PROGRESS"
      : undefined;
  const code = own ?? (Object.keys(ERROR_STATUS) as ErrorCode[]).find((c) => ERROR_STATUS[c] === status)!;
  return { error: { code, message: DEFAULT_MESSAGE[code] } };
}

function operation(route: RestRoute) {
  const input = route.input;
  const inputSchema = input ? jsonSchema(input, "input") : null;
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const properties = (inputSchema?.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((inputSchema?.required ?? []) as string[]);
  const examples = ROUTE_EXAMPLES[exampleKey(route)];

  const parameters: unknown[] = pathParams.map((name) => {
    const schema = properties[name] ?? { type: "string" };
    return {
      name,
      in: "path",
      required: true,
      schema,
      ...(schema.description ? { description: schema.description } : {}),
    };
  });
  if (route.method === "POST") parameters.push(IDEMPOTENCY_KEY_PARAMETER);
  let requestBody: unknown;
  const bodyProps = Object.fromEntries(Object.entries(properties).filter(([k]) => !pathParams.includes(k)));
  if (route.method === "GET") {
    for (const [name, schema] of Object.entries(bodyProps))
      parameters.push({
        name,
        in: "query",
        required: required.has(name),
        schema,
        ...(schema.description ? { description: schema.description } : {}),
      });
  } else if (Object.keys(bodyProps).length) {
    const bodySchema = {
      ...inputSchema,
      properties: bodyProps,
      required: [...required].filter((k) => !pathParams.includes(k)),
    };
    requestBody = {
      required: bodySchema.required.length > 0,
      content: {
        "application/json": {
          schema: bodySchema,
          ...(examples?.request !== undefined && { example: examples.request }),
        },
      },
    };
  }

  const responses: Record<string, unknown> = {
    [route.status]: {
      description: route.summary,
      ...(route.method === "POST" && {
        headers: {
          "idempotent-replayed": {
            schema: { type: "string", enum: ["true"] },
            description: "Present when this is the stored answer to an earlier request with the same Idempotency-Key",
          },
        },
      }),
      content: {
        "application/json": {
          schema: jsonSchema(route.output, "output"),
          ...(examples?.response !== undefined && { example: examples.response }),
        },
      },
    },
  };
  for (const status of errorStatuses(route, Boolean(input))) {
    responses[status] = {
      description: STATUS_TEXT[status] ?? "Error",
      ...((status === 429 || status === 503) && {
        headers: {
          "Retry-After": { schema: { type: "integer", minimum: 1 }, description: "Seconds to wait before retrying" },
        },
      }),
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/ErrorEnvelope" },
          example: errorExample(status, route),
        },
      },
    };
  }
  return {
    operationId: route.procedure,
    summary: route.summary,
    tags: [route.path.split("/")[2] ?? "api"],
    ...(route.auth ? { security: [{ bearer: [] }] } : { security: [] }),
    ...(parameters.length && { parameters }),
    ...(requestBody !== undefined && { requestBody }),
    responses,
  };
}

function webhook(type: string, summary: string) {
  const header = (name: string, description: string) => ({
    name,
    in: "header",
    required: true,
    schema: { type: "string" },
    description,
  });
  return {
    post: {
      summary,
      description: "Signed per the Standard Webhooks spec with your webhookSecret; verify before trusting it.",
      parameters: [
        header("webhook-id", "The event id; the same on every retry: deduplicate on it"),
        header("webhook-timestamp", "Unix seconds; reject events older than 5 minutes"),
        header(
          "webhook-signature",
          "Space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>`; two during a secret rotation",
        ),
      ],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/Event" },
            example: ROUTE_EXAMPLES[`event ${type}`]?.request,
          },
        },
      },
      responses: {
        "2XX": {
          description:
            "Received. Anything else is retried (call.ended, call.error) or treated as no answer (call.started).",
        },
      },
    },
  };
}

let cached: Record<string, unknown> | undefined;

export function buildOpenApiDocument(): Record<string, unknown> {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of restRoutes) {
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  cached = {
    openapi: "3.1.0",
    info: {
      title: "Routekit API",
      version: "1.0.0",
      description:
        "Voice callback routing for your Twilio numbers. Authenticate with `Authorization: Bearer <API key or login JWT>`. " +
        "Every error has the same envelope; every response carries `x-request-id`.",
    },
    servers: [{ url: "/", description: "This service" }],
    paths,
    webhooks: {
      "call.started": webhook(
        "call.started",
        "A call was answered; your answer (TwiML, {twiml} or {actions}) decides it",
      ),
      "call.ended": webhook("call.ended", "A call ended; completed calls carry duration and cost"),
      "call.error": webhook("call.error", "A call failed, was rejected, or your start answer was unusable"),
    },
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "An API key (`rtk_…`) or the JWT from POST /api/auth/login",
        },
      },
      schemas: { ErrorEnvelope: jsonSchema(ERROR_ENVELOPE, "output"), Event: jsonSchema(ZEventEnvelope, "output") },
    },
  };
  return cached;
}
