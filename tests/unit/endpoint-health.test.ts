import { describe, expect, it } from "vitest";
import {
  BASE_BACKOFF_MS,
  FAILURE_THRESHOLD,
  MAX_BACKOFF_MS,
  backoffMs,
  isEndpointFailure,
} from "../../src/server/services/deliveries/endpoint-health";

describe("what counts against an endpoint", () => {
  it("timeouts, connection and DNS errors, 429 and 5xx do", () => {
    for (const errorKind of ["timeout", "connection", "dns"])
      expect(isEndpointFailure({ statusCode: null, errorKind })).toBe(true);
    for (const statusCode of [429, 500, 502, 503, 504])
      expect(isEndpointFailure({ statusCode, errorKind: null })).toBe(true);
  });
  it("answers that show the endpoint is up, and our own URL policy, do not", () => {
    for (const statusCode of [200, 204, 301, 400, 401, 404, 410])
      expect(isEndpointFailure({ statusCode, errorKind: null })).toBe(false);
    for (const errorKind of ["invalid_url", "blocked_address", null])
      expect(isEndpointFailure({ statusCode: null, errorKind })).toBe(false);
  });
});

describe("back-off of a failing endpoint", () => {
  it("none below the threshold, then doubling from the base up to the maximum", () => {
    expect(backoffMs(FAILURE_THRESHOLD - 1)).toBe(0);
    expect(backoffMs(FAILURE_THRESHOLD)).toBe(BASE_BACKOFF_MS);
    expect(backoffMs(FAILURE_THRESHOLD + 1)).toBe(2 * BASE_BACKOFF_MS);
    expect(backoffMs(FAILURE_THRESHOLD + 2)).toBe(4 * BASE_BACKOFF_MS);
    expect(backoffMs(FAILURE_THRESHOLD + 10)).toBe(MAX_BACKOFF_MS);
    expect(backoffMs(10_000)).toBe(MAX_BACKOFF_MS);
  });
});
