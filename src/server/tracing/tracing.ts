import { hostname } from "node:os";
import type { Attributes, Context, Span, SpanKind, Tracer } from "@opentelemetry/api";
import type { Env } from "../env";
import { logger } from "../logger";
import { peek, rememberValue } from "../runtime/remember";

/**
 * OpenTelemetry tracing (docs/operations.md "Tracing"), behind one facade so that off costs nothing.
 *
 * On only when OTEL_EXPORTER_OTLP_ENDPOINT is set: boot loads the SDK then (dynamic imports, so an
 * instance without it never loads a line of it), registers a provider that exports OTLP/HTTP JSON in
 * batches, and remembers it for the process. Off, every helper here is one comparison with null and
 * a call of the function it wraps: no span, no context, no header.
 *
 * Spans are made by hand at the call sites (the engine request, `call.started`, the database
 * statements, delivery attempts), not by monkey-patching instrumentations: those patch `require`d
 * modules, and the server is one esbuild bundle (dist/server.mjs) next to Next.js's own bundles.
 * The OpenTelemetry API keeps its registration process-wide, so both module graphs see one provider;
 * Next.js's built-in spans join the same traces.
 */

type Api = typeof import("@opentelemetry/api");

export type Tracing = {
  api: Api;
  tracer: Tracer;
  /** Ends the export: the batch in hand is sent (bounded by the exporter's timeout). */
  shutdown(): Promise<void>;
};

export type { Span };

const KEY = "tracing";
/** Per module graph: this graph's view of the process's tracing, undefined until first asked, null when off. */
let current: Tracing | null | undefined;

/** The tracing in force, or null when off. After the first call, one comparison. */
export function tracing(): Tracing | null {
  if (current === undefined) current = peek<Tracing>(KEY) ?? null;
  return current;
}

/** Boot's first step: loads and registers the SDK when the env asks for tracing, else does nothing. */
export async function startTracing(config: Env["tracing"]): Promise<Tracing | null> {
  if (!config) {
    current = null;
    return null;
  }
  const [api, core, sdk, otlp, resources] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/core"),
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  const exporter = new otlp.OTLPTraceExporter({ url: `${config.endpoint}/v1/traces`, headers: config.headers });
  const provider = new sdk.NodeTracerProvider({
    resource: resources.resourceFromAttributes({
      "service.name": config.serviceName,
      "service.instance.id": `${hostname()}:${process.pid}`,
    }),
    // An incoming traceparent's sampled flag is obeyed; a trace we start is sampled at OTEL_TRACES_SAMPLER_ARG
    // (by its trace id, so every instance decides the same for one trace). Unsampled spans record nothing.
    sampler: new sdk.ParentBasedSampler({
      root: config.sampleRatio >= 1 ? new sdk.AlwaysOnSampler() : new sdk.TraceIdRatioBasedSampler(config.sampleRatio),
    }),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000, maxQueueSize: 4096 })],
  });
  // W3C trace context only (no baggage): `traceparent` and `tracestate`, in and out.
  provider.register({ propagator: new core.W3CTraceContextPropagator() });
  // The SDK reports a failed export (a collector down or refusing) through its diagnostics, silent by default:
  // to our log instead, at most once a minute, so an operator sees it and a dead collector does not flood it.
  let lastReport = 0;
  const report = (message: string, ...args: unknown[]) => {
    // Next.js's own tracing may still touch a request's span after the answer, once ours has ended: harmless.
    if (message.includes("ended Span")) return;
    if (Date.now() - lastReport < 60_000) return;
    lastReport = Date.now();
    const detail = [message, ...args.map(String)].join(" ").slice(0, 500);
    logger().warn(
      { endpoint: config.endpoint, detail },
      "tracing: spans could not be exported (or the SDK had a problem)",
    );
  };
  const quiet = () => undefined;
  api.diag.setLogger(
    { error: report, warn: report, info: quiet, debug: quiet, verbose: quiet },
    { logLevel: api.DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  const active: Tracing = {
    api,
    tracer: api.trace.getTracer("routekit"),
    shutdown: () => provider.shutdown(),
  };
  current = rememberValue<Tracing | null>(KEY, active);
  return active;
}

/** Sends what is batched and stops exporting (graceful shutdown). */
export async function stopTracing(): Promise<void> {
  await tracing()?.shutdown();
}

/** Kinds by name, so callers need not import the API's enum (SpanKind's values are fixed by the specification). */
const KIND = { internal: 0, server: 1, client: 2, producer: 3, consumer: 4 } as const satisfies Record<
  string,
  SpanKind
>;

export type SpanOptions = {
  kind?: keyof typeof KIND;
  attributes?: Attributes;
  /** A W3C `traceparent` to continue (a delivery job's), instead of the active context. */
  parent?: string | null;
};

/**
 * Runs `work` in a span named `name`, active for everything it awaits (database statements, outbound
 * requests); an error thrown marks the span failed and is rethrown. Off: `work(null)`, nothing else.
 */
export function withSpan<T>(name: string, opts: SpanOptions, work: (span: Span | null) => Promise<T>): Promise<T> {
  const t = tracing();
  if (!t) return work(null);
  const parent = opts.parent ? contextOf(t, opts.parent) : t.api.context.active();
  return t.tracer.startActiveSpan(
    name,
    { kind: KIND[opts.kind ?? "internal"], attributes: opts.attributes },
    parent,
    async (span) => {
      try {
        return await work(span);
      } catch (err) {
        failSpan(span, err);
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** Marks a span failed with the error (status ERROR, an exception event). */
function failSpan(span: Span, err: unknown): void {
  const t = tracing();
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: t ? t.api.SpanStatusCode.ERROR : 2, message: err instanceof Error ? err.message : undefined });
}

/**
 * A server span for an incoming request, continuing its `traceparent` when it has one (an API client's,
 * a proxy's), and the context to run the request's handling in; null when tracing is off.
 */
export function startServerSpan(
  headers: Record<string, string | string[] | undefined>,
  name: string,
  attributes: Attributes,
): { span: Span; context: Context } | null {
  const t = tracing();
  if (!t) return null;
  const incoming = t.api.propagation.extract(t.api.ROOT_CONTEXT, headers);
  const span = t.tracer.startSpan(name, { kind: KIND.server, attributes }, incoming);
  return { span, context: t.api.trace.setSpan(incoming, span) };
}

/** Runs `fn` with `context` active (a server span's), for everything it starts. */
export function runInContext<T>(context: Context, fn: () => T): T {
  return tracing()!.api.context.with(context, fn);
}

/**
 * The active span's `traceparent` (and `tracestate`) as headers for an outbound request, or null when
 * tracing is off or nothing is being traced. Sent with `call.started` and every event delivery.
 */
export function traceHeaders(): Record<string, string> | null {
  const t = tracing();
  if (!t) return null;
  const carrier: Record<string, string> = {};
  t.api.propagation.inject(t.api.context.active(), carrier);
  return carrier.traceparent ? carrier : null;
}

/** The active span's `traceparent`, for work carried on later (a delivery job), or undefined. */
export function currentTraceparent(): string | undefined {
  return traceHeaders()?.traceparent;
}

function contextOf(t: Tracing, traceparent: string): Context {
  return t.api.propagation.extract(t.api.ROOT_CONTEXT, { traceparent });
}
