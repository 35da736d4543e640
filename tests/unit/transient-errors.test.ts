import { describe, expect, it } from "vitest";
import { AppError } from "../../src/server/errors/app-error";
import { isTransientError, toErrorResponse } from "../../src/server/errors/to-error-response";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("errors that mean 'try again later'", () => {
  it.each([
    ["connection refused", withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED")],
    ["connection reset", withCode("read ECONNRESET", "ECONNRESET")],
    ["pool exhausted", new Error("timeout exceeded when trying to connect")],
    ["connection dropped", new Error("Connection terminated unexpectedly")],
    ["admin shutdown", withCode("terminating connection due to administrator command", "57P01")],
    ["server starting", withCode("the database system is starting up", "57P03")],
    ["serialization failure", withCode("could not serialize access due to concurrent update", "40001")],
    ["deadlock", withCode("deadlock detected", "40P01")],
    ["statement timeout", withCode("canceling statement due to statement timeout", "57014")],
    ["connection exception class", withCode("connection failure", "08006")],
    ["Prisma cannot reach", withCode("Can't reach database server", "P1001")],
    ["wrapped in a cause", new Error("query failed", { cause: withCode("connect ECONNREFUSED", "ECONNREFUSED") })],
    [
      "Prisma's driver adapter, server's code in meta",
      Object.assign(withCode("Database error. Code: `57P01`. Message: `terminating connection due to administrator command`", "P2039"), {
        meta: { driverAdapterError: { cause: { originalCode: "57P01", kind: "postgres" } } },
      }),
    ],
  ])("%s → 503 SERVICE_UNAVAILABLE with Retry-After, no internals", (_name, err) => {
    expect(isTransientError(err)).toBe(true);
    const mapped = toErrorResponse(err);
    expect(mapped.status).toBe(503);
    expect(mapped.body.error.code).toBe("SERVICE_UNAVAILABLE");
    expect(mapped.headers["retry-after"]).toBe("5");
    expect(JSON.stringify(mapped.body)).not.toMatch(/ECONN|57P|5432|serialize/);
  });

  it("other failures stay what they are", () => {
    expect(isTransientError(withCode('duplicate key value violates unique constraint "x"', "23505"))).toBe(false);
    expect(isTransientError(new TypeError("x is undefined"))).toBe(false);
    expect(toErrorResponse(new TypeError("x is undefined")).status).toBe(500);
    expect(toErrorResponse(new AppError("FORBIDDEN")).status).toBe(403);
  });
});
