import type pg from "pg";
import { tracing } from "./tracing";

/** The statement's text on a span is cut here: the engine's joined read is long, and a span is not a log. */
const MAX_TEXT = 2048;

type Callback = (err: Error | null, res?: pg.QueryResult) => void;

/**
 * A span per database statement, made by wrapping one pooled connection's `query` when the pool opens
 * it (db/client.ts), so every statement on the shared pool has one: Prisma's, Kysely's and the engine's
 * alike, in whatever module graph they run. Statement text only, with its $n placeholders: parameter
 * values (phone numbers, secrets) never go on a span. Off: nothing is wrapped.
 *
 * Not `@opentelemetry/instrumentation-pg`: it patches the `pg` module as it is required, which an
 * esbuild bundle and Next.js's bundles load around; a wrapper at the one place connections are made
 * sees them all.
 *
 * A statement gets a span only inside a trace that is recorded (a request's, a delivery attempt's): the
 * job queue's polls, lease renewals and maintenance, outside any request, would each be a trace of one
 * statement, exported several times a second for nothing; and an unsampled trace's statements are skipped
 * without the work of a span.
 */
export function traceStatements(client: pg.PoolClient): void {
  const t = tracing();
  if (!t) return;
  const { api, tracer } = t;
  const query = client.query as (...args: unknown[]) => unknown;
  const traced = function (this: pg.PoolClient, config: unknown, values?: unknown, callback?: unknown): unknown {
    // A submittable (a cursor, a stream) reports through its own events: passed on untraced.
    if (config == null || typeof (config as { submit?: unknown }).submit === "function")
      return query.call(this, config, values, callback);
    if (!api.trace.getSpan(api.context.active())?.isRecording()) return query.call(this, config, values, callback);
    const text = typeof config === "string" ? config : ((config as pg.QueryConfig).text ?? "");
    const operation = /^\s*([a-zA-Z]+)/.exec(text)?.[1]?.toUpperCase() ?? "QUERY";
    const span = tracer.startSpan(
      operation,
      {
        kind: api.SpanKind.CLIENT,
        attributes: {
          "db.system.name": "postgresql",
          "db.operation.name": operation,
          "db.query.text": text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text,
        },
      },
      api.context.active(),
    );
    const end = (err: Error | null | undefined, res?: pg.QueryResult) => {
      if (err) {
        span.recordException(err);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: err.message });
        const code = (err as { code?: unknown }).code;
        if (typeof code === "string") span.setAttribute("db.response.status_code", code);
      } else if (res && typeof res.rowCount === "number") span.setAttribute("db.response.returned_rows", res.rowCount);
      span.end();
    };
    const cb = (typeof values === "function" ? values : callback) as Callback | undefined;
    if (cb) {
      const done: Callback = (err, res) => {
        end(err, res);
        cb(err, res);
      };
      return typeof values === "function" ? query.call(this, config, done) : query.call(this, config, values, done);
    }
    const result = query.call(this, config, values) as Promise<pg.QueryResult>;
    result.then(
      (res) => end(null, res),
      (err: Error) => end(err),
    );
    return result;
  };
  client.query = traced as typeof client.query;
}
