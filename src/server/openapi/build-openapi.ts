import { z } from "zod";
import { DEFAULT_MESSAGE, ERROR_STATUS, type ErrorCode } from "../errors/error-codes";
import { restRoutes, type RestRoute } from "../rest/routes";
import { rolesAllowed } from "../../shared/roles";
import { impliedErrors } from "../trpc/builder-traits";
import { EVENT_CATALOGUE, type EventType, NAMED_EVENT_SCHEMAS } from "../../shared/schemas/events";
import { EVENT_EXAMPLES } from "./event-examples";
import {
  boundedInt,
  boundedString,
  ERROR_DETAILS_MAX_ITEMS,
  MESSAGE_MAX_CHARS,
  outputId,
  RATE_LIMIT_HEADER_MAX_CHARS,
  REQUEST_ID_MAX_CHARS,
  RETRY_AFTER_MAX_SECONDS,
  WEBHOOK_SIGNATURE_CHARS,
  ZIdempotencyKey,
} from "../../shared/schemas/bounds";

/**
 * The OpenAPI 3.1 document, generated from the REST route table and the zod
 * schemas of the procedures behind it: there is no hand-written copy to drift.
 */
type JsonSchema = Record<string, unknown>;

const SCHEMAS = "#/components/schemas/";

/**
 * A zod schema as JSON Schema. The resources it holds that are named (`.meta({ id: "PhoneNumber" })`,
 * shared/schemas/resources.ts) come out of zod as `$defs`: they go to `named` (components.schemas) and
 * are referenced there, so a generated client has one `PhoneNumber` type wherever a number appears.
 */
function jsonSchema(schema: z.ZodType, io: "input" | "output", named: Record<string, unknown>): JsonSchema {
  const text = JSON.stringify(z.toJSONSchema(schema, { io, unrepresentable: "any" })).replaceAll(
    '"#/$defs/',
    `"${SCHEMAS}`,
  );
  const { $schema: _drop, $defs, ...rest } = JSON.parse(text) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  for (const [id, def] of Object.entries($defs ?? {})) {
    if (named[id] !== undefined && JSON.stringify(named[id]) !== JSON.stringify(def))
      throw new Error(`OpenAPI: two different schemas are named ${id}`);
    named[id] = def;
  }
  return rest;
}

/** A header's or parameter's schema, from zod like every other. */
const plainSchema = (schema: z.ZodType) => jsonSchema(schema, "input", {});

/** The API guide's table of error codes and their statuses. */
const ERROR_TABLE_LINK = "docs/api.md#errors";
const CODES = (Object.keys(ERROR_STATUS) as ErrorCode[]).map((c) => `\`${c}\` (${ERROR_STATUS[c]})`).join(", ");

const ERROR_ENVELOPE = z
  .object({
    error: z
      .object({
        code: z
          .enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]])
          .describe(
            `What went wrong, for programs: ${CODES}. Each is explained in the API guide's error table (${ERROR_TABLE_LINK}).`,
          ),
        message: boundedString(MESSAGE_MAX_CHARS).describe("What went wrong, for people; never a stack trace or SQL"),
        details: z
          .array(
            z.object({
              path: boundedString(MESSAGE_MAX_CHARS).describe(
                "The field, query parameter or header at fault, e.g. onCallStartUrl",
              ),
              message: boundedString(MESSAGE_MAX_CHARS).describe("What is wrong with it"),
            }),
          )
          .max(ERROR_DETAILS_MAX_ITEMS)
          .optional()
          .describe(`Validation errors only: one entry per field at fault (the first ${ERROR_DETAILS_MAX_ITEMS})`),
      })
      .describe("The one error envelope of every /api answer; the x-request-id header finds it in our logs"),
  })
  .meta({ id: "ErrorEnvelope" });

const STATUS_TEXT: Record<number, string> = {
  400: "Invalid request",
  401: "Missing or invalid API key or token",
  402: "Payment required: complete checkout",
  403: "Forbidden: your role or key does not allow it, account suspended, number not owned, unverified number limit reached, or invalid signature",
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
  schema: plainSchema(ZIdempotencyKey),
  description:
    "Retry safely: the same key with the same body within 24 hours replays the first answer (status and body, with header `idempotent-replayed: true`) and does nothing again; another body → 422 IDEMPOTENCY_KEY_REUSED; while the first is still running → 409 IDEMPOTENCY_IN_PROGRESS. A 4xx answer is replayed too; after a 5xx the key is released so a retry runs. Keys are per account (per client address for register and login).",
};

/** Every operation is grouped under one of these, by its path's first segment after /api. */
// In reading order; the reference opens the first group, so the probes (the shortest operations) come first.
const MEMBERS_TAG = {
  name: "members",
  description:
    "The people in your account and their roles: invitations by email (the mailed link is the only way to accept), role changes, removal.",
};

const TAGS: Record<string, { name: string; description: string }> = {
  health: { name: "system", description: "Liveness and readiness, for load balancers and orchestrators." },
  ready: { name: "system", description: "Liveness and readiness, for load balancers and orchestrators." },
  auth: { name: "auth", description: "Register an account and log in: the login JWT works wherever an API key does." },
  account: { name: "account", description: "Your account: status, webhook secret, engine URL, and rotating them." },
  members: MEMBERS_TAG,
  // Accepting an invitation (/api/invitations/accept/…) belongs with the members who sent it.
  invitations: MEMBERS_TAG,
  "api-keys": { name: "api-keys", description: "API keys (`rtk_…`): created (shown once), listed by prefix, revoked." },
  "phone-numbers": {
    name: "phone-numbers",
    description: "Your US numbers and the callback URLs on your backend that decide their calls.",
  },
  outbound: { name: "outbound", description: "Place a call through Twilio; your backend decides it when answered." },
  calls: { name: "calls", description: "The call log: every call the engine saw, with its timeline." },
  usage: { name: "usage", description: "Billed minutes and costs, per call and for the month." },
  billing: { name: "billing", description: "Checkout, the billing portal and the subscription's totals." },
  "webhook-deliveries": {
    name: "webhook-deliveries",
    description: "The delivery log of the events we send you: attempts, redeliver, replay and test events.",
  },
  "webhook-endpoints": {
    name: "webhook-endpoints",
    description:
      "Account webhook endpoints: every event of the types they subscribe to, wherever it comes from, signed with each endpoint's own secret.",
  },
  "event-types": {
    name: "event-types",
    description: "The event catalogue: every event type Routekit sends, with the JSON Schema of its body.",
  },
  "audit-log": {
    name: "audit-log",
    description:
      "Every change to the account (members, keys, numbers, endpoints, limits, Twilio, secrets, billing links, live calls): who, what, the target, the address and the time, kept 13 months. Owners and admins only.",
  },
  alerts: {
    name: "alerts",
    description:
      "Alerts (failing endpoints, fallbacks answering calls, rejected Twilio credentials …): listed with what to do, sent as alert.* events and by email.",
  },
  lookup: { name: "lookup", description: "Find what a call SID, event id or phone number names in your account." },
  "twilio-connection": {
    name: "twilio-connection",
    description: "Your Twilio account's credentials: number ownership, set-up and signed, reconciled calls.",
  },
};

function tagOf(route: RestRoute): string {
  const segment = route.path.split("/")[2] ?? "";
  const tag = TAGS[segment];
  if (!tag) throw new Error(`OpenAPI: no tag for ${route.path}; add its path segment to TAGS`);
  return tag.name;
}

/** `phoneNumbers.create` → `PhoneNumbersCreate`: the stem of the operation's named schemas. */
function schemaStem(procedure: string): string {
  return procedure
    .split(".")
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join("");
}

/** What every operation's reference says beyond its summary, from the route's own contract. */
function operationDescription(route: RestRoute): string {
  const lines = [`${route.summary}.`];
  lines.push(
    route.auth
      ? "Authenticate with an API key or a login JWT (`Authorization: Bearer …`); 50 requests a second per account, bursts of 100."
      : route.access === "sign-in"
        ? "No credentials; limited per client address and per email (see the RateLimit headers)."
        : "No credentials.",
  );
  if (route.standing === "paid") lines.push("Needs a paid account: INACTIVE answers 402, SUSPENDED 403.");
  else if (route.standing === "unsuspended") lines.push("A SUSPENDED account answers 403 ACCOUNT_SUSPENDED.");
  if (route.needs !== "none")
    lines.push(`Permission: ${route.needs} (roles: ${rolesAllowed(route.needs).join(", ")}; docs/decisions.md §18).`);
  if (route.method === "POST") lines.push("Retry safely with an `Idempotency-Key`.");
  if (route.database !== false) lines.push("While the database is unreachable: 503 with `Retry-After`.");
  return lines.join(" ");
}

/** Rate-limit state, on the answers of every route that spends from a bucket. */
const RATE_LIMIT_HEADERS = {
  RateLimit: { $ref: "#/components/headers/RateLimit" },
  "RateLimit-Policy": { $ref: "#/components/headers/RateLimitPolicy" },
};

const hasBucket = (route: RestRoute) => route.access !== "public";

function errorStatuses(route: RestRoute, hasInput: boolean): number[] {
  // What the route's builder implies (its credentials and standing), then what the route itself declares.
  const statuses = new Set<number>([500, ...impliedErrors(route), ...(route.errors ?? [])]);
  // The input boundary answers 400 on any route: a NUL character, a malformed escape, a bad content type.
  statuses.add(400);
  if (hasInput) statuses.add(400);
  if (route.method !== "GET" && route.method !== "DELETE") statuses.add(413);
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

function operation(route: RestRoute, named: Record<string, unknown>) {
  const input = route.input;
  const inputSchema = input ? jsonSchema(input, "input", named) : null;
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const properties = (inputSchema?.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((inputSchema?.required ?? []) as string[]);
  const examples = route.examples;

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
  const stem = schemaStem(route.procedure);
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
    named[`${stem}Request`] = bodySchema;
    requestBody = {
      required: bodySchema.required.length > 0,
      content: {
        "application/json": {
          schema: { $ref: `#/components/schemas/${stem}Request` },
          ...(examples.request !== undefined && { example: examples.request }),
        },
      },
    };
  }

  named[`${stem}Response`] = jsonSchema(route.output, "output", named);
  const common = {
    "x-request-id": { $ref: "#/components/headers/XRequestId" },
    ...(hasBucket(route) && RATE_LIMIT_HEADERS),
  };
  const responses: Record<string, unknown> = {
    [route.status]: {
      description: route.summary,
      headers: {
        ...common,
        ...(route.method === "POST" && {
          "idempotent-replayed": {
            schema: plainSchema(z.literal("true")),
            description: "Present when this is the stored answer to an earlier request with the same Idempotency-Key",
          },
        }),
      },
      content: {
        "application/json": {
          schema: { $ref: `#/components/schemas/${stem}Response` },
          example: examples.response,
        },
      },
    },
  };
  for (const status of errorStatuses(route, Boolean(input))) {
    responses[status] = {
      description: STATUS_TEXT[status] ?? "Error",
      headers: {
        ...common,
        ...((status === 429 || status === 503) && {
          "Retry-After": {
            schema: plainSchema(boundedInt(1, RETRY_AFTER_MAX_SECONDS)),
            description: "Seconds to wait before retrying",
          },
        }),
      },
      content: {
        "application/json": {
          schema: { $ref: `${SCHEMAS}ErrorEnvelope` },
          example: errorExample(status, route),
        },
      },
    };
  }
  return {
    operation: {
      operationId: route.procedure,
      summary: route.summary,
      description: operationDescription(route),
      tags: [tagOf(route)],
      // What the route declares on its contract: the permission it needs (teams enforce it) and the standing it requires.
      "x-routekit-needs": route.needs,
      "x-routekit-standing": route.standing,
      ...(route.auth ? { security: [{ bearer: [] }] } : { security: [] }),
      ...(parameters.length && { parameters }),
      ...(requestBody !== undefined && { requestBody }),
      responses,
    },
  };
}

/** The Standard Webhooks headers of every event we send (webhooks/webhook-signature.ts). */
const WEBHOOK_HEADERS = {
  "webhook-id": outputId(),
  "webhook-timestamp": z
    .string()
    .regex(/^\d{1,12}$/)
    .max(12),
  // `v1,` and the base64 of an HMAC-SHA256 (44 characters), once per signing secret: two during a rotation.
  "webhook-signature": boundedString(2 * WEBHOOK_SIGNATURE_CHARS + 1),
};

function webhook(type: EventType, summary: string, named: Record<string, unknown>) {
  const header = (name: keyof typeof WEBHOOK_HEADERS, description: string) => ({
    name,
    in: "header",
    required: true,
    schema: plainSchema(WEBHOOK_HEADERS[name]),
    description,
  });
  return {
    post: {
      operationId: `event.${type}`,
      tags: ["events"],
      security: [{ webhookSignature: [] }],
      summary,
      description:
        "Signed per the Standard Webhooks spec with your webhookSecret (an account endpoint's own secret for events sent to it); verify before trusting it.",
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
            schema: jsonSchema(NAMED_EVENT_SCHEMAS[type], "output", named),
            example: EVENT_EXAMPLES[type],
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

// Per module graph: a cache of a pure function of the route table.
let cached: Record<string, unknown> | undefined;

export function buildOpenApiDocument(): Record<string, unknown> {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  // The named resources first (Error, PhoneNumber, …), then each operation's Request and Response.
  const schemas: Record<string, unknown> = {};
  jsonSchema(ERROR_ENVELOPE, "output", schemas);
  for (const route of restRoutes) {
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route, schemas).operation;
  }
  const webhooks = Object.fromEntries(EVENT_CATALOGUE.map((e) => [e.type, webhook(e.type, e.description, schemas)]));
  const tags = [...new Map(Object.values(TAGS).map((t) => [t.name, t])).values()];
  cached = {
    openapi: "3.1.0",
    info: {
      title: "Routekit API",
      version: "1.0.0",
      description:
        "Voice callback routing for your Twilio numbers. Authenticate with `Authorization: Bearer <API key or login JWT>`. " +
        "Every error has the same envelope; every response carries `x-request-id`.",
      license: { name: "MIT", identifier: "MIT" },
      contact: { name: "Routekit maintainers" },
    },
    servers: [{ url: "/", description: "This service" }],
    tags: [
      ...tags,
      { name: "events", description: "The events we POST to your backend, signed per the Standard Webhooks spec." },
    ],
    paths,
    webhooks,
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "An API key (`rtk_…`) or the JWT from POST /api/auth/login",
        },
        webhookSignature: {
          type: "apiKey",
          in: "header",
          name: "webhook-signature",
          description:
            "Events we send you carry a Standard Webhooks signature made with your webhook secret: verify it before trusting the event.",
        },
      },
      headers: {
        XRequestId: {
          schema: plainSchema(boundedString(REQUEST_ID_MAX_CHARS)),
          description:
            "This request's id: yours if you sent a valid `x-request-id` ([A-Za-z0-9._:-]{1,128}), else ours. It finds the request in our logs.",
        },
        RateLimit: {
          schema: plainSchema(boundedString(RATE_LIMIT_HEADER_MAX_CHARS)),
          description:
            'IETF RateLimit field for the bucket this request spent from: `"<policy>";r=<requests left>;t=<seconds until the bucket is full again>`.',
        },
        RateLimitPolicy: {
          schema: plainSchema(boundedString(RATE_LIMIT_HEADER_MAX_CHARS)),
          description:
            'IETF RateLimit-Policy field: `"<policy>";q=<burst>;w=<seconds an empty bucket takes to refill>`. `account` is the API\'s 50 a second with bursts of 100; `address` the per-address limit of register and login.',
        },
      },
      schemas: {
        ...schemas,
      },
    },
  };
  return cached;
}
