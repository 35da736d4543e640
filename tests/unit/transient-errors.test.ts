import { describe, expect, it } from "vitest";
import { AppError } from "../../src/server/errors/app-error";
import { isTransientError, toErrorResponse } from "../../src/server/errors/to-error-response";
import { DriverAdapterError } from "@prisma/driver-adapter-utils";
import { PrismaClientKnownRequestError } from "@prisma/client/runtime/client";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
/** What node-postgres throws for an ErrorResponse: a DatabaseError with the SQLSTATE and a severity. */
const pgError = (message: string, code: string) => Object.assign(new Error(message), { code, severity: "FATAL" });
/**
 * What Prisma 7 throws for a SQLSTATE its adapter does not name: a generic
 * P2039 whose meta holds the adapter's error, whose cause (a plain object)
 * holds the SQLSTATE. The same classes Prisma's runtime uses.
 */
const prismaAdapterError = (message: string, sqlstate: string) =>
  new PrismaClientKnownRequestError(`Database error. Code: \`${sqlstate}\`. Message: \`${message}\``, {
    code: "P2039",
    clientVersion: "7.10.0",
    meta: {
      driverAdapterError: new DriverAdapterError({
        kind: "postgres",
        code: sqlstate,
        severity: "FATAL",
        message,
        detail: undefined,
        column: undefined,
        hint: undefined,
        originalCode: sqlstate,
        originalMessage: message,
      }),
    },
  });
const prismaCode = (code: string) =>
  new PrismaClientKnownRequestError("prisma says try again", { code, clientVersion: "7.10.0" });

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
    // docs/decisions.md §3: every "try again" family, as the drivers really throw it.
    [
      "55000 database not accepting connections (pg)",
      pgError('database "rk" is not currently accepting connections', "55000"),
    ],
    [
      "55000 through Prisma's adapter (P2039)",
      prismaAdapterError('database "rk" is not currently accepting connections', "55000"),
    ],
    ["55006 object in use", pgError("database is being accessed by other users", "55006")],
    ["55P03 lock not available", pgError("could not obtain lock on row", "55P03")],
    ["08001 cannot establish a connection", pgError("could not connect", "08001")],
    ["08P01 protocol violation", prismaAdapterError("protocol violation", "08P01")],
    ["53000 insufficient resources", pgError("insufficient resources", "53000")],
    ["53100 disk full", pgError("could not extend file: No space left on device", "53100")],
    ["53200 out of memory", prismaAdapterError("out of memory", "53200")],
    ["53300 too many connections", pgError("sorry, too many clients already", "53300")],
    ["53400 configuration limit exceeded", pgError("configuration limit exceeded", "53400")],
    ["57P02 crash shutdown", pgError("terminating connection because of crash of another server process", "57P02")],
    ["57P04 database dropped", pgError("database dropped", "57P04")],
    ["57P05 idle session timeout", pgError("terminating connection due to idle-session timeout", "57P05")],
    [
      "57P01 through Prisma's adapter",
      prismaAdapterError("terminating connection due to administrator command", "57P01"),
    ],
    ["connection timed out", withCode("connect ETIMEDOUT 10.0.0.1:5432", "ETIMEDOUT")],
    ["pg pool timeout", new Error("timeout exceeded when trying to connect")],
    ["Prisma P1001 cannot reach", prismaCode("P1001")],
    ["Prisma P1002 timed out", prismaCode("P1002")],
    ["Prisma P1017 connection closed", prismaCode("P1017")],
    ["Prisma P2024 pool timeout", prismaCode("P2024")],
    ["Prisma P2037 too many connections", prismaCode("P2037")],
    [
      "in an AggregateError (pg tries every address)",
      new AggregateError([withCode("connect ECONNREFUSED ::1:5432", "ECONNREFUSED")], "connect failed"),
    ],
    [
      "Prisma's driver adapter, server's code in meta",
      Object.assign(
        withCode(
          "Database error. Code: `57P01`. Message: `terminating connection due to administrator command`",
          "P2039",
        ),
        {
          meta: { driverAdapterError: { cause: { originalCode: "57P01", kind: "postgres" } } },
        },
      ),
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
    expect(isTransientError(prismaAdapterError("date/time field value out of range", "22008"))).toBe(false);
    expect(isTransientError(pgError("syntax error", "42601"))).toBe(false);
    expect(isTransientError(prismaCode("P2002"))).toBe(false);
    expect(toErrorResponse(prismaAdapterError("value too long", "22001")).status).toBe(500);
    // A cycle of causes ends the walk instead of looping.
    const a = new Error("a"),
      b = new Error("b", { cause: a });
    Object.assign(a, { cause: b });
    expect(isTransientError(a)).toBe(false);
    expect(isTransientError(new TypeError("x is undefined"))).toBe(false);
    expect(toErrorResponse(new TypeError("x is undefined")).status).toBe(500);
    expect(toErrorResponse(new AppError("FORBIDDEN")).status).toBe(403);
  });
});
