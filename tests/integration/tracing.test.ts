import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { siblingDatabase, startBuiltServer, type BuiltServer } from "../../scripts/built-server";
import { newCallSid } from "../../src/twilio-simulator/twilio-simulator";
import { newActiveAccount, numberBody } from "../support/api";
import { jsonClient } from "../support/own-server";
import { startReceiver } from "../support/receiver";
import { TEST_AUTH_SECRET } from "../support/test-secrets";
import { until } from "../support/until";

// OpenTelemetry tracing (docs/operations.md, "Tracing"): the built server, with
// OTEL_EXPORTER_OTLP_ENDPOINT pointing at a real OTLP/HTTP receiver (a node:http
// server decoding the exporter's JSON), follows one inbound call from Twilio's
// request through the customer's backend and the database to the event's
// delivery in one trace, and continues an API client's traceparent. Unset, no
// traceparent leaves the server.

type OtlpValue = {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
};
type ExportedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: string;
};

/** OTLP JSON carries ids as hex (the specification) or, from some encoders, base64: both read as hex. */
function hexId(id: string | undefined): string {
  if (!id) return "";
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, "base64").toString("hex");
}

function plain(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(plain);
  return undefined;
}

/** A local OTLP/HTTP traces receiver: POST /v1/traces, JSON (ExportTraceServiceRequest). */
async function startOtlpReceiver() {
  const spans: ExportedSpan[] = [];
  const requests: { path: string; contentType: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ path: req.url ?? "", contentType: String(req.headers["content-type"]) });
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans?: {
          resource?: { attributes?: { key: string; value: OtlpValue }[] };
          scopeSpans?: {
            spans?: {
              traceId: string;
              spanId: string;
              parentSpanId?: string;
              name: string;
              kind: number;
              attributes?: { key: string; value: OtlpValue }[];
            }[];
          }[];
        }[];
      };
      for (const rs of body.resourceSpans ?? []) {
        const service = rs.resource?.attributes?.find((a) => a.key === "service.name");
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              traceId: hexId(s.traceId),
              spanId: hexId(s.spanId),
              parentSpanId: hexId(s.parentSpanId) || undefined,
              name: s.name,
              kind: s.kind,
              attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, plain(a.value)])),
              service: String(service ? plain(service.value) : ""),
            });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** W3C traceparent: version, trace id, parent (span) id, flags. */
function parseTraceparent(value: unknown): { traceId: string; spanId: string } | null {
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(String(value ?? ""));
  return m ? { traceId: m[1]!, spanId: m[2]! } : null;
}

function voiceBody(to: string) {
  return new URLSearchParams({
    CallSid: newCallSid(),
    AccountSid: `AC${"7".repeat(32)}`,
    From: "+14155550100",
    To: to,
    Direction: "inbound",
    CallStatus: "ringing",
  }).toString();
}

/** A number whose backend fails `call.started` (so `call.error` is queued and delivered to `/error`). */
async function failingNumber(
  json: ReturnType<typeof jsonClient>,
  apiKey: string,
  backend: { url(path: string): string },
) {
  const body = numberBody({
    onCallStartUrl: backend.url("/start"),
    onCallEndUrl: backend.url("/end"),
    onErrorUrl: backend.url("/error"),
  });
  const created = await json("POST", "/api/phone-numbers", body, apiKey);
  expect(created.status).toBe(201);
  return body.phoneNumber;
}

describe("tracing on (OTEL_EXPORTER_OTLP_ENDPOINT set)", () => {
  let server: BuiltServer;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let backend: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    backend = await startReceiver((r, res) => {
      // call.started fails: the apology answers, and call.error is queued for /error.
      if (r.path === "/start") res.writeHead(500).end("down");
      else res.writeHead(200).end("ok");
    });
    const embedded = inject("embedded");
    server = await startBuiltServer({
      name: "it-tracing",
      env: {
        AUTH_SECRET: TEST_AUTH_SECRET,
        ...(embedded
          ? { DATABASE_URL: undefined }
          : { DATABASE_URL: await siblingDatabase(inject("databaseUrl"), "tracing") }),
        CALLBACK_ALLOW_PRIVATE: "true",
        TRUST_PROXY: "true",
        TWILIO_API_BASE_URL: "http://127.0.0.1:9",
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        OTEL_SERVICE_NAME: "routekit-it",
      },
    });
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await backend?.close();
    await otlp?.close();
  });

  it("one inbound call: the engine span, call.started (whose context the backend receives), its statements and the delivery attempt, in one trace", {
    timeout: 60_000,
  }, async () => {
    const json = jsonClient(server.baseUrl);
    const registered = await json("POST", "/api/auth/register", {
      email: `trace-${randomBytes(6).toString("hex")}@example.com`,
      password: `pw-${randomBytes(8).toString("hex")}`,
    });
    expect(registered.status).toBe(201);
    const { apiKey, engineVoiceUrl, checkoutUrl } = registered.body as Record<string, string>;
    expect((await fetch(checkoutUrl!, { method: "POST", redirect: "manual" })).status).toBe(303);
    const to = await failingNumber(json, apiKey!, backend);

    const res = await fetch(engineVoiceUrl!, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: voiceBody(to),
    });
    expect(res.status).toBe(200);
    await res.text();
    const requestId = res.headers.get("x-request-id");
    expect(requestId).toBeTruthy();

    // The backend's call.started carries the call.started span's context.
    const start = await until(() => backend.received.find((r) => r.path === "/start"), "call.started");
    const startParent = parseTraceparent(start.headers.traceparent);
    expect(startParent).not.toBeNull();
    const traceId = startParent!.traceId;
    // The event's delivery carries the delivery attempt's context, in the same trace.
    const error = await until(() => backend.received.find((r) => r.path === "/error"), "call.error delivered");
    const errorParent = parseTraceparent(error.headers.traceparent);
    expect(errorParent?.traceId).toBe(traceId);

    const inTrace = () => otlp.spans.filter((s) => s.traceId === traceId);
    const attemptSpan = await until(
      () => inTrace().find((s) => s.name === "webhook delivery attempt" && s.spanId === errorParent!.spanId),
      "the delivery attempt's span exported",
    );
    expect(attemptSpan.attributes["routekit.delivery.outcome"]).toBe("delivered");
    expect(attemptSpan.service).toBe("routekit-it");

    const spans = inTrace();
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    // The request's server span (SPAN_KIND_SERVER = 2), a root, named by the route template (never the routing token).
    const serverSpan = spans.find((s) => s.kind === 2 && s.name === "POST /api/engine/voice/{token}");
    expect(serverSpan, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
    expect(serverSpan!.parentSpanId).toBeUndefined();
    expect(serverSpan!.attributes["http.request.header.x-request-id"]).toEqual([requestId]);
    expect(serverSpan!.attributes["http.response.status_code"]).toBe(200);
    // The engine's span under it, and call.started (SPAN_KIND_CLIENT = 3) under the engine's: the span the backend saw.
    const engineSpan = spans.find((s) => s.name === "engine request");
    expect(engineSpan?.parentSpanId).toBe(serverSpan!.spanId);
    const startSpan = byId.get(startParent!.spanId);
    expect(startSpan?.name).toBe("call.started POST");
    expect(startSpan?.kind).toBe(3);
    expect(startSpan?.attributes["http.response.status_code"]).toBe(500);
    const ancestors = (s: ExportedSpan | undefined): string[] =>
      s?.parentSpanId ? [s.parentSpanId, ...ancestors(byId.get(s.parentSpanId))] : [];
    expect(ancestors(startSpan)).toContain(engineSpan!.spanId);
    // The engine's statements under the engine's span, their text without values: the lookup that inserts
    // the call (one WITH statement, engine/sql/lookup.ts lookupAndInsert), then the call.error the failed backend caused.
    const statements = spans.filter(
      (s) => s.attributes["db.system.name"] === "postgresql" && ancestors(s).includes(engineSpan!.spanId),
    );
    expect(statements.length).toBeGreaterThanOrEqual(2);
    // (Its text is cut at 2 KiB on the span: the lookup's columns come first, the insert after them.)
    expect(
      statements.some((s) => s.name === "WITH" && String(s.attributes["db.query.text"]).startsWith('with "l" as')),
    ).toBe(true);
    for (const s of statements) expect(String(s.attributes["db.query.text"])).not.toContain(to);
    // The attempt's own statements (reading the delivery, recording the attempt) under its span.
    expect(
      spans.some((s) => s.attributes["db.system.name"] === "postgresql" && s.parentSpanId === attemptSpan.spanId),
    ).toBe(true);
    // No statement is a trace of its own: the job queue's polling, outside any request, is not traced.
    expect(otlp.spans.filter((s) => s.attributes["db.system.name"] === "postgresql" && !s.parentSpanId)).toEqual([]);
    // Exported as OTLP/HTTP JSON to the standard path.
    expect(otlp.requests.every((r) => r.path === "/v1/traces" && r.contentType.startsWith("application/json"))).toBe(
      true,
    );
  });

  it("Twilio's voice request with a traceparent: the call continues that trace, and the backend sees it", {
    timeout: 30_000,
  }, async () => {
    const json = jsonClient(server.baseUrl);
    const registered = await json("POST", "/api/auth/register", {
      email: `trace-${randomBytes(6).toString("hex")}@example.com`,
      password: `pw-${randomBytes(8).toString("hex")}`,
    });
    expect(registered.status).toBe(201);
    const { apiKey, engineVoiceUrl, checkoutUrl } = registered.body as Record<string, string>;
    expect((await fetch(checkoutUrl!, { method: "POST", redirect: "manual" })).status).toBe(303);
    const to = await failingNumber(json, apiKey!, backend);
    const traceId = randomBytes(16).toString("hex");
    const parentId = randomBytes(8).toString("hex");
    const res = await fetch(engineVoiceUrl!, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", traceparent: `00-${traceId}-${parentId}-01` },
      body: voiceBody(to),
    });
    expect(res.status).toBe(200);
    await res.text();
    const start = await until(
      () =>
        backend.received.find(
          (r) => r.path === "/start" && parseTraceparent(r.headers.traceparent)?.traceId === traceId,
        ),
      "call.started in the caller's trace",
    );
    const serverSpan = await until(
      () => otlp.spans.find((s) => s.traceId === traceId && s.kind === 2),
      "the voice request's server span in the caller's trace",
    );
    expect(serverSpan.parentSpanId).toBe(parentId);
    expect(parseTraceparent(start.headers.traceparent)?.spanId).not.toBe(parentId);
  });

  it("an API request with a traceparent continues that trace, the Next.js side's statements included", {
    timeout: 30_000,
  }, async () => {
    const json = jsonClient(server.baseUrl);
    const registered = await json("POST", "/api/auth/register", {
      email: `trace-${randomBytes(6).toString("hex")}@example.com`,
      password: `pw-${randomBytes(8).toString("hex")}`,
    });
    expect(registered.status).toBe(201);
    const traceId = randomBytes(16).toString("hex");
    const parentId = randomBytes(8).toString("hex");
    const res = await fetch(`${server.baseUrl}/api/phone-numbers`, {
      headers: {
        authorization: `Bearer ${(registered.body as { apiKey: string }).apiKey}`,
        traceparent: `00-${traceId}-${parentId}-01`,
        "x-forwarded-for": "198.18.7.7",
      },
    });
    expect(res.status).toBe(200);
    await res.text();
    const serverSpan = await until(
      () => otlp.spans.find((s) => s.traceId === traceId && s.kind === 2 && s.parentSpanId === parentId),
      "the API request's server span in the caller's trace",
    );
    expect(serverSpan.name).toBe("GET /api/phone-numbers");
    expect(serverSpan.attributes["http.request.header.x-request-id"]).toEqual([res.headers.get("x-request-id")]);
    // The API key's lookup and the list, run inside Next.js's bundle: in the same trace.
    await until(
      () => otlp.spans.some((s) => s.traceId === traceId && s.attributes["db.system.name"] === "postgresql"),
      "the API request's statements in the caller's trace",
    );
  });
});

describe("tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset)", () => {
  let backend: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    backend = await startReceiver((r, res) => {
      if (r.path === "/start") res.writeHead(500).end("down");
      else res.writeHead(200).end("ok");
    });
  });
  afterAll(() => backend?.close());

  it("sends no traceparent, on call.started or on the event's delivery, even when Twilio's request had one", {
    timeout: 30_000,
  }, async () => {
    // The suite's shared servers run without OTEL_EXPORTER_OTLP_ENDPOINT.
    const account = await newActiveAccount({ server: "permissive" });
    const body = numberBody({
      onCallStartUrl: backend.url("/start"),
      onCallEndUrl: backend.url("/end"),
      onErrorUrl: backend.url("/error"),
    });
    expect((await account.as("POST", "/api/phone-numbers", { body })).status).toBe(201);
    const res = await fetch(account.engineVoiceUrl, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        traceparent: `00-${randomBytes(16).toString("hex")}-${randomBytes(8).toString("hex")}-01`,
      },
      body: voiceBody(body.phoneNumber),
    });
    expect(res.status).toBe(200);
    await res.text();
    const start = await until(() => backend.received.find((r) => r.path === "/start"), "call.started");
    const error = await until(() => backend.received.find((r) => r.path === "/error"), "call.error delivered");
    expect(start.headers.traceparent).toBeUndefined();
    expect(error.headers.traceparent).toBeUndefined();
    expect(start.headers.tracestate).toBeUndefined();
  });
});
