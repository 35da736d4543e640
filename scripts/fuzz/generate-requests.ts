import { restRoutes } from "../../src/server/rest/routes";
import {
  AUTHORIZATIONS,
  CONTENT_TYPES,
  HOSTILE_JSON_VALUES,
  HOSTILE_KEYS,
  HOSTILE_QUERY_VALUES,
  HOSTILE_SEGMENTS,
  METHODS,
  OUT_OF_RANGE_TIMES,
  forgedCursor,
  hostileRawBodies,
  type Pick,
} from "./hostile-values";

/**
 * Hostile requests derived from what the service says it serves: the OpenAPI
 * document it publishes (/api/openapi.json) and the REST route table, plus the
 * transports beside them (tRPC, next-auth, the engine, billing pages, Stripe's
 * webhook). Nothing here lists endpoints by hand but those side transports.
 */

export type FuzzRequest = {
  /** What was meant, for the report. */
  kind: string;
  method: string;
  /** Raw path and query, sent as is. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Authorization "valid": the runner puts one of its accounts' keys there. */
};

export type Fixture = {
  /** Real ids the accounts own (phone numbers, keys), to reach past "not found". */
  ids: string[];
  engineVoicePaths: string[];
  phoneNumbers: string[];
  billingTokens: { checkout: string[]; portal: string[] };
};

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  $ref?: string;
  example?: unknown;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
};
type Operation = {
  method: string;
  path: string;
  params: { name: string; in: string; schema?: Schema }[];
  body?: Schema;
  example?: unknown;
};

export type OpenApiDocument = {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Operation["params"];
        requestBody?: { content?: Record<string, { schema?: Schema; example?: unknown }> };
      }
    >
  >;
  components?: { schemas?: Record<string, Schema> };
};

function resolve(doc: OpenApiDocument, schema: Schema | undefined): Schema | undefined {
  if (!schema?.$ref) return schema;
  return resolve(doc, doc.components?.schemas?.[schema.$ref.split("/").pop()!]);
}

/** Every operation of the published document, REST routes it may lack added from the route table. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const content = op.requestBody?.content?.["application/json"];
      ops.push({
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        body: resolve(doc, content?.schema),
        example: content?.example,
      });
    }
  }
  for (const route of restRoutes) {
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    if (!ops.some((o) => o.path === path && o.method === route.method)) {
      ops.push({
        method: route.method,
        path,
        params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1]!, in: "path" })),
      });
    }
  }
  return ops;
}

/** A plausible value for a schema (the example if there is one), to mutate one field at a time. */
function plausible(doc: OpenApiDocument, raw: Schema | undefined, pick: Pick, depth = 0): unknown {
  const schema = resolve(doc, raw);
  if (!schema || depth > 4) return null;
  if (schema.example !== undefined) return schema.example;
  if (schema.enum?.length) return pick(schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants?.length) return plausible(doc, pick(variants), pick, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(schema.properties ?? {})) out[k] = plausible(doc, v, pick, depth + 1);
      return out;
    }
    case "array":
      return [plausible(doc, schema.items, pick, depth + 1)];
    case "integer":
      return schema.minimum ?? 1;
    case "number":
      return 1.5;
    case "boolean":
      return true;
    case "string":
      if (schema.pattern?.includes("\\+1")) return "+14155550123";
      if (schema.format === "uri" || /url/i.test(JSON.stringify(schema))) return "https://api.example.com/hook";
      return "value";
    default:
      return null;
  }
}

/** One hostile JSON body for an operation: a plausible object with one thing wrong, or something that is no object at all. */
function hostileJson(doc: OpenApiDocument, op: Operation, pick: Pick, random: () => number): string {
  const base = (op.example ?? plausible(doc, op.body, pick)) as Record<string, unknown> | null;
  const fields = base && typeof base === "object" ? Object.keys(base) : [];
  const roll = random();
  if (roll < 0.45 && fields.length) {
    const copy: Record<string, unknown> = { ...base };
    copy[pick(fields)] = pick(HOSTILE_JSON_VALUES);
    if (random() < 0.3) copy[pick(fields)] = pick(HOSTILE_JSON_VALUES);
    return JSON.stringify(copy);
  }
  if (roll < 0.6) {
    // Keys JSON.stringify would drop or rename are written by hand.
    const key = pick(HOSTILE_KEYS);
    const value = JSON.stringify(pick(HOSTILE_JSON_VALUES) ?? null);
    const inner = JSON.stringify(base ?? {}).slice(1, -1);
    return `{${inner}${inner ? "," : ""}${JSON.stringify(key)}:${value}}`;
  }
  if (roll < 0.7 && fields.length) {
    const copy: Record<string, unknown> = { ...base };
    delete copy[pick(fields)];
    return JSON.stringify(copy);
  }
  return pick(hostileRawBodies());
}

function fillPath(template: string, fixture: Fixture, pick: Pick, random: () => number): string {
  return template.replace(/\{\w+\}/g, () =>
    random() < 0.35 && fixture.ids.length ? pick(fixture.ids) : pick(HOSTILE_SEGMENTS),
  );
}

function hostileQuery(op: Operation, pick: Pick, random: () => number): string {
  const names = op.params.filter((p) => p.in === "query").map((p) => p.name);
  const parts: string[] = [];
  for (const name of names) if (random() < 0.7) parts.push(`${name}=${pick(HOSTILE_QUERY_VALUES)}`);
  if (random() < 0.2)
    parts.push(
      `${pick(["__proto__[x]", "constructor[prototype][y]", "%00", "%", "a%ZZ"])}=${pick(HOSTILE_QUERY_VALUES)}`,
    );
  if (random() < 0.15 && names.length) parts.push(`${names[0]}=1&${names[0]}=2`);
  return parts.length ? `?${parts.join("&")}` : "";
}

function withAuth(headers: Record<string, string>, pick: Pick): Record<string, string> {
  const auth = pick(AUTHORIZATIONS);
  if (auth === "none") return headers;
  return { ...headers, authorization: auth === "valid" ? "valid" : auth };
}

const json = (text: string) => Buffer.from(text, "utf8");
const oversized = (bytes: number) => Buffer.from(JSON.stringify({ label: "x".repeat(bytes) }));

/** A REST request from the published document. */
export function restRequest(
  doc: OpenApiDocument,
  ops: Operation[],
  fixture: Fixture,
  pick: Pick,
  random: () => number,
): FuzzRequest {
  const op = pick(ops);
  const roll = random();
  let method = op.method;
  if (roll < 0.12) method = pick(METHODS);
  const path =
    fillPath(op.path, fixture, pick, random) +
    (op.method === "GET" || random() < 0.2 ? hostileQuery(op, pick, random) : "");
  let headers = withAuth({}, pick);
  let body: Buffer | undefined;
  if (method !== "GET" && method !== "HEAD") {
    const b = random();
    if (b < 0.05) body = oversized(70 * 1024);
    else if (b < 0.07) body = oversized(1024 * 1024);
    else if (b < 0.85) body = json(hostileJson(doc, op, pick, random));
    headers = { ...headers, "content-type": random() < 0.8 ? "application/json" : pick(CONTENT_TYPES) };
    // With a key the body is hashed before the schema sees it (docs/decisions.md §11): hostile bodies must pass that too.
    if (method === "POST" && random() < 0.3) headers["idempotency-key"] = `fuzz-${Math.floor(random() * 1e9)}`;
  }
  return { kind: `rest ${op.method} ${op.path}`, method, path, headers, body };
}

/** tRPC: the procedures behind the route table, batched, typed and sized wrongly. */
export function trpcRequest(doc: OpenApiDocument, ops: Operation[], pick: Pick, random: () => number): FuzzRequest {
  const procedures = [...restRoutes.map((r) => r.procedure), "nope", "system", "__proto__", "auth.register.x", "%00"];
  const size = pick([1, 1, 1, 2, 3, 10, 11, 50, 1200]);
  const names = Array.from({ length: size }, () => pick(procedures));
  const batched = size > 1 || random() < 0.5;
  const path = `/api/trpc/${names.join(",")}`;
  const inputFor = () => {
    const route = restRoutes.find((r) => r.procedure === names[0]);
    const op = route && ops.find((o) => o.method === route.method && o.path === route.path.replace(/:(\w+)/g, "{$1}"));
    return op ? hostileJson(doc, op, pick, random) : JSON.stringify(pick(HOSTILE_JSON_VALUES));
  };
  const input = batched
    ? `{${names.map((_, i) => `"${i}":${random() < 0.8 ? inputFor() : "null"}`).join(",")}}`
    : inputFor();
  const headers: Record<string, string> = random() < 0.2 ? { cookie: "next-auth.session-token=forged.jwt.value" } : {};
  if (random() < 0.45) {
    const query = `${batched ? "batch=1&" : ""}input=${random() < 0.9 ? encodeURIComponent(input) : pick(HOSTILE_QUERY_VALUES)}`;
    return {
      kind: "trpc GET",
      method: pick(["GET", "GET", "GET", "HEAD", "PUT", "TRACE"]),
      path: `${path}?${query}`,
      headers,
    };
  }
  const body = random() < 0.06 ? oversized(70 * 1024) : json(input);
  return {
    kind: "trpc POST",
    method: "POST",
    path: batched ? `${path}?batch=1` : path,
    headers: { ...headers, "content-type": random() < 0.7 ? "application/json" : pick(CONTENT_TYPES) },
    body,
  };
}

/** Twilio's side: well-formed CallStatus and CallDuration (their ranges are the engine's own), everything else hostile. */
export function engineRequest(fixture: Fixture, pick: Pick, random: () => number): FuzzRequest {
  const base =
    fixture.engineVoicePaths.length && random() < 0.8
      ? pick(fixture.engineVoicePaths)
      : `/api/engine/voice/${pick(HOSTILE_SEGMENTS)}`;
  const query = random() < 0.25 ? `?call=${pick([...HOSTILE_QUERY_VALUES, ...fixture.ids])}` : "";
  const sid = () => `CA${Array.from({ length: 32 }, () => "0123456789abcdef"[Math.floor(random() * 16)]).join("")}`;
  const params: [string, string][] = [
    ["CallSid", random() < 0.7 ? sid() : pick(["", "\u0000", "CA\u0000", "x".repeat(5000), "😀", "CA%00"])],
    ["From", random() < 0.6 ? "+14155550100" : pick(["", "\u0000", "anonymous", "x".repeat(3000), "+1%00", "<Say>"])],
    [
      "To",
      random() < 0.7 && fixture.phoneNumbers.length
        ? pick(fixture.phoneNumbers)
        : pick(["", "\u0000", "+19999999999", "x".repeat(3000)]),
    ],
    ["AccountSid", pick([`AC${"0".repeat(32)}`, "", "\u0000"])],
  ];
  // Twilio's own values mostly; the rest are what a forger sends (docs/decisions.md §7: 400, nothing recorded).
  const statuses = ["ringing", "in-progress", "completed", "busy", "failed", "no-answer", "canceled", "queued"];
  const hostileStatuses = ["__proto__", "constructor", "toString", "COMPLETED", "", "completed\u0000", "x".repeat(300)];
  const durations = ["0", "1", "59", "60", "61", "3600", "86400"];
  const hostileDurations = [
    "86401",
    "2147483648",
    "99999999999999999999",
    "-1",
    "1e20",
    "1.5",
    "abc",
    "",
    "0x10",
    " 60",
  ];
  if (random() < 0.5) params.push(["CallStatus", random() < 0.8 ? pick(statuses) : pick(hostileStatuses)]);
  if (random() < 0.4) params.push(["CallDuration", random() < 0.7 ? pick(durations) : pick(hostileDurations)]);
  if (random() < 0.3) params.push([pick(HOSTILE_KEYS), pick(["1", "\u0000", "x".repeat(2000)])]);
  if (random() < 0.2) params.push(["CallSid", sid()]);
  let text = new URLSearchParams(params).toString();
  if (random() < 0.1) text = pick(["%", "a=%zz", "=&=&", "CallSid", JSON.stringify({ CallSid: sid() }), "CallSid=%00"]);
  const headers: Record<string, string> = {
    "content-type": random() < 0.85 ? "application/x-www-form-urlencoded" : pick(CONTENT_TYPES),
  };
  if (random() < 0.5) headers["x-twilio-signature"] = pick(["", "bogus", "x".repeat(500), "AAAA="]);
  const body = random() < 0.05 ? Buffer.from(`CallSid=${"x".repeat(70 * 1024)}`) : Buffer.from(text);
  return { kind: "engine", method: random() < 0.93 ? "POST" : pick(METHODS), path: base + query, headers, body };
}

/** next-auth's endpoints and the billing pages: forms expected, anything sent. */
export function sessionOrBillingRequest(fixture: Fixture, pick: Pick, random: () => number): FuzzRequest {
  const roll = random();
  const contentType = random() < 0.5 ? "application/x-www-form-urlencoded" : pick(CONTENT_TYPES);
  const formOrJson = () =>
    pick([
      "csrfToken=x&email=a%40b.co&password=xxxxxxxx",
      "csrfToken=x&email=a%40b.co&password=xxxxxxxx&callbackUrl=%25",
      "email=%00&password=%00",
      `email=${"x".repeat(5000)}`,
      JSON.stringify({ email: "a@b.co", password: "xxxxxxxxxx", csrfToken: "x" }),
      "action=cancel",
      "action=resume",
      "action=%00",
      `action=${"x".repeat(3000)}`,
      ...hostileRawBodies().slice(0, 12),
    ]);
  if (roll < 0.5) {
    const endpoint = pick([
      "csrf",
      "session",
      "providers",
      "signin",
      "signin/credentials",
      "callback/credentials",
      "signout",
      "error",
      "nope",
      "%00",
      "%",
      "callback/%zz",
      "_log",
    ]);
    const method = pick(["GET", "POST", "POST", "PUT", "TRACE"]);
    const query =
      random() < 0.3
        ? `?callbackUrl=${pick(["%2Fdashboard", "https%3A%2F%2Fevil.example", "%00", "%", "javascript:alert(1)"])}`
        : "";
    const body =
      method === "POST" ? (random() < 0.05 ? Buffer.alloc(70 * 1024, 0x61) : Buffer.from(formOrJson())) : undefined;
    const headers: Record<string, string> = body ? { "content-type": contentType } : {};
    if (random() < 0.2)
      headers.cookie = pick([
        "next-auth.callback-url=javascript%3Aalert(1)",
        "next-auth.callback-url=%",
        "next-auth.csrf-token=%00",
        "next-auth.session-token=a.b.c",
        "__Secure-next-auth.callback-url=x",
      ]);
    return { kind: `session ${endpoint}`, method, path: `/api/session/${endpoint}${query}`, headers, body };
  }
  const tokens = [...fixture.billingTokens.checkout, ...fixture.billingTokens.portal];
  const token = random() < 0.5 && tokens.length ? pick(tokens) : pick(HOSTILE_SEGMENTS);
  if (roll < 0.8) {
    // The local billing pages' buttons: a POST with any body acts (docs/decisions.md §4).
    const body = random() < 0.05 ? Buffer.alloc(70 * 1024, 0x61) : Buffer.from(formOrJson());
    const action = pick(["checkout", "portal/cancel", "portal/resume"]);
    const path =
      action === "checkout"
        ? `/billing/checkout/${token}`
        : `/billing/portal/${token}/${action.slice("portal/".length)}`;
    return {
      kind: `billing ${action} button`,
      method: random() < 0.9 ? "POST" : pick(METHODS),
      path,
      headers: { "content-type": contentType },
      body,
    };
  }
  const page = pick(["checkout", "portal", "done"]);
  return {
    kind: `billing ${page}`,
    method: pick(["GET", "GET", "HEAD", "POST", "TRACE"]),
    path: page === "done" ? `/billing/done?${pick(HOSTILE_QUERY_VALUES)}` : `/billing/${page}/${token}`,
    headers: {},
  };
}

/** Stripe's webhook, pages and unknown paths. */
export function otherRequest(pick: Pick, random: () => number): FuzzRequest {
  const roll = random();
  if (roll < 0.4) {
    const body = random() < 0.08 ? Buffer.alloc(70 * 1024, 0x7b) : Buffer.from(pick(hostileRawBodies()));
    const headers: Record<string, string> = { "content-type": pick(CONTENT_TYPES) || "application/json" };
    if (random() < 0.7)
      headers["stripe-signature"] = pick([
        "t=1,v1=abc",
        "",
        "t=%00",
        "x".repeat(3000),
        `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}`,
      ]);
    return {
      kind: "stripe webhook",
      method: random() < 0.9 ? "POST" : pick(METHODS),
      path: "/api/webhooks/stripe",
      headers,
      body,
    };
  }
  const page = pick([
    "/",
    "/login",
    "/signup",
    "/dashboard",
    "/dashboard/numbers",
    "/dashboard/%00",
    "/docs",
    "/docs/scalar.js",
    "/api/openapi.json",
    "/api",
    "/api/",
    "/%",
    "/api/%",
    "/nope",
    "/_next/static/%00",
    "/_next/%zz",
    "//api//account",
    "/api/engine/voice/",
  ]);
  const query = random() < 0.4 ? `?${pick(["callbackUrl", "a", "%00", "input"])}=${pick(HOSTILE_QUERY_VALUES)}` : "";
  return { kind: `page ${page}`, method: pick(METHODS), path: page + query, headers: {} };
}

/** 2,500 levels of `{"a":…}`: JSON.parse takes it; anything recursing over it afterwards overflows. */
const NESTED_2500 = Buffer.from(`${'{"a":'.repeat(2500)}1${"}".repeat(2500)}`);

/**
 * Every case a past attack turned into a 5xx, sent once per run whatever the
 * seed, so none can come back unseen (issue #22). Authorization "valid" is
 * filled in by the runner like the generated requests'.
 */
export function fixedRequests(): FuzzRequest[] {
  const list: FuzzRequest[] = [];
  const form = { "content-type": "application/x-www-form-urlencoded" };
  // next-auth with a callbackUrl that is a lone `%` once decoded.
  for (const endpoint of ["callback/credentials", "signin/credentials", "signin", "signout"]) {
    list.push({
      kind: "fixed: next-auth callbackUrl=%25",
      method: "POST",
      path: `/api/session/${endpoint}`,
      headers: form,
      body: Buffer.from("csrfToken=x&email=a%40b.co&password=xxxxxxxx&callbackUrl=%25"),
    });
    list.push({
      kind: "fixed: next-auth callbackUrl=%25 in the query",
      method: "POST",
      path: `/api/session/${endpoint}?callbackUrl=%25`,
      headers: form,
      body: Buffer.from("csrfToken=x&email=a%40b.co&password=xxxxxxxx"),
    });
  }
  // Deep JSON, with and without an Idempotency-Key, signed in and not.
  for (const path of [
    "/api/api-keys",
    "/api/phone-numbers",
    "/api/auth/login",
    "/api/auth/register",
    "/api/webhook-deliveries/test",
    "/api/trpc/apiKeys.create",
  ]) {
    for (const key of ["fixed-nested", undefined]) {
      const headers: Record<string, string> = { "content-type": "application/json", authorization: "valid" };
      if (key) headers["idempotency-key"] = `${key}-${path}`;
      list.push({
        kind: `fixed: nested JSON${key ? " with an Idempotency-Key" : ""}`,
        method: "POST",
        path,
        headers,
        body: NESTED_2500,
      });
    }
  }
  // Times and cursors PostgreSQL cannot store, on both keyset lists.
  for (const time of OUT_OF_RANGE_TIMES) {
    for (const query of [`since=${encodeURIComponent(time)}`, `until=${encodeURIComponent(time)}`])
      list.push({
        kind: "fixed: out-of-range time",
        method: "GET",
        path: `/api/calls?${query}`,
        headers: { authorization: "valid" },
      });
    for (const list_ of ["/api/calls", "/api/usage"])
      list.push({
        kind: "fixed: out-of-range cursor",
        method: "GET",
        path: `${list_}?cursor=${forgedCursor(time)}`,
        headers: { authorization: "valid" },
      });
  }
  list.push({
    kind: "fixed: JavaScript's earliest date as a cursor",
    method: "GET",
    path: `/api/usage?cursor=${forgedCursor(new Date(-8.64e15).toISOString())}`,
    headers: { authorization: "valid" },
  });
  return list;
}
