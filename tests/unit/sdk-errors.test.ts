import { createServer, type ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { Routekit } from "../../sdk/src/client/routekit";
import {
  AuthenticationError,
  ConflictError,
  errorFromResponse,
  NotFoundError,
  PermissionError,
  RateLimitError,
  RoutekitConnectionError,
  RoutekitError,
  ServerError,
  ValidationError,
} from "../../sdk/src/errors";

// The SDK's one mapping from an answer to a typed error; the integration tests meet each family from the service.
const envelope = (code: string, extra: Record<string, unknown> = {}) => ({
  error: { code, message: `${code} happened`, ...extra },
});
const response = (status: number, headers: Record<string, string> = {}) =>
  new Response(null, { status, headers: { "x-request-id": "req_1", ...headers } });

describe("errorFromResponse", () => {
  it.each([
    [400, "VALIDATION_FAILED", ValidationError],
    [401, "TWO_FACTOR_REQUIRED", AuthenticationError],
    [403, "ENDPOINT_LIMIT_REACHED", PermissionError],
    [404, "NOT_FOUND", NotFoundError],
    [409, "CALL_NOT_LIVE", ConflictError],
    [503, "SERVICE_UNAVAILABLE", ServerError],
  ] as const)("%i %s is its family's class and carries the envelope", (status, code, Family) => {
    const error = errorFromResponse(response(status), envelope(code, { details: [{ path: "to", message: "bad" }] }));
    expect(error).toBeInstanceOf(Family);
    expect(error).toBeInstanceOf(RoutekitError);
    expect(error).toMatchObject({ status, code, message: `${code} happened`, requestId: "req_1" });
    expect(error.details).toEqual([{ path: "to", message: "bad" }]);
  });

  it("429 carries Retry-After in seconds, or null", () => {
    const limited = errorFromResponse(response(429, { "retry-after": "17" }), envelope("RATE_LIMITED"));
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfter).toBe(17);
    expect((errorFromResponse(response(429), envelope("CONCURRENCY_LIMIT")) as RateLimitError).retryAfter).toBeNull();
  });

  it("an answer without the envelope (a proxy's page) still gets a code from its status", () => {
    const error = errorFromResponse(response(502), "<html>Bad gateway</html>");
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ code: "PROVIDER_UNAVAILABLE", details: [] });
    expect(errorFromResponse(response(418), null)).toMatchObject({ code: "INTERNAL", status: 418 });
  });
});

describe("no answer", () => {
  it("a request past timeoutMs, or aborted by the caller, is a RoutekitConnectionError, never a RoutekitError", async () => {
    const held: ServerResponse[] = [];
    const silent = createServer((_req, res) => held.push(res));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    try {
      const rk = new Routekit({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 200 });
      const started = Date.now();
      const timedOut = await rk.system.health().catch((e: unknown) => e);
      expect(timedOut).toBeInstanceOf(RoutekitConnectionError);
      expect(timedOut).not.toBeInstanceOf(RoutekitError);
      expect(Date.now() - started).toBeLessThan(5_000);
      const controller = new AbortController();
      const aborted = rk.system.health({ signal: controller.signal, timeoutMs: 0 }).catch((e: unknown) => e);
      controller.abort();
      expect(await aborted).toBeInstanceOf(RoutekitConnectionError);
    } finally {
      for (const res of held) res.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
