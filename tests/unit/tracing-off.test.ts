import { describe, expect, it } from "vitest";
import { parseEnv } from "../../src/server/env";
import { traceRequests } from "../../src/server/http/http-spans";
import { currentTraceparent, startTracing, traceHeaders, tracing, withSpan } from "../../src/server/tracing/tracing";

// Tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset) costs nothing: no SDK, no span, no wrapper, no header.
const BASE = { AUTH_SECRET: "x".repeat(40), DATA_DIR: "/nonexistent-routekit-test" };

describe("tracing's configuration", () => {
  it("is off without OTEL_EXPORTER_OTLP_ENDPOINT, whatever else is set", () => {
    expect(parseEnv({ ...BASE, OTEL_SERVICE_NAME: "x" }, { persistSecrets: false }).tracing).toBeNull();
  });

  it("takes the endpoint, the service name and OTLP headers as the specification writes them", () => {
    const e = parseEnv(
      {
        ...BASE,
        OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example.com:4318/",
        OTEL_EXPORTER_OTLP_HEADERS: "api-key=a%20b, x-team=ops",
      },
      { persistSecrets: false },
    );
    expect(e.tracing).toEqual({
      endpoint: "https://otel.example.com:4318",
      headers: { "api-key": "a b", "x-team": "ops" },
      serviceName: "routekit",
      sampleRatio: 1,
    });
  });

  it("takes a sampling share between 0 and 1, and refuses anything else", () => {
    const on = { ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(parseEnv({ ...on, OTEL_TRACES_SAMPLER_ARG: "0.1" }, { persistSecrets: false }).tracing?.sampleRatio).toBe(
      0.1,
    );
    for (const bad of ["1.5", "-0.1", "all"])
      expect(() => parseEnv({ ...on, OTEL_TRACES_SAMPLER_ARG: bad }, { persistSecrets: false })).toThrow(
        /OTEL_TRACES_SAMPLER_ARG/,
      );
  });

  it("refuses an endpoint that is not an http(s) URL", () => {
    expect(() =>
      parseEnv({ ...BASE, OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318" }, { persistSecrets: false }),
    ).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });
});

describe("tracing off", () => {
  it("loads nothing, wraps nothing and sends no traceparent", async () => {
    expect(await startTracing(null)).toBeNull();
    expect(tracing()).toBeNull();
    const listener = () => undefined;
    expect(traceRequests(listener)).toBe(listener);
    let given: unknown = "unset";
    expect(
      await withSpan("x", {}, async (span) => {
        given = span;
        return 7;
      }),
    ).toBe(7);
    expect(given).toBeNull();
    expect(traceHeaders()).toBeNull();
    expect(currentTraceparent()).toBeUndefined();
  });
});
