import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/server/errors/app-error";
import { ERROR_STATUS, type ErrorCode, TRPC_CODE_OF_STATUS } from "../../src/server/errors/error-codes";
import { publicProcedure, router } from "../../src/server/trpc/init";

describe("tRPC codes of the error table", () => {
  it("gives every error code the tRPC code whose own HTTP status is the code's status", () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      const trpcCode: TRPC_ERROR_CODE_KEY | undefined = (TRPC_CODE_OF_STATUS as Record<number, TRPC_ERROR_CODE_KEY>)[
        status
      ];
      expect(trpcCode, `${code} (${status}) has no tRPC code`).toBeDefined();
      expect(getHTTPStatusCodeFromError(new TRPCError({ code: trpcCode! })), `${code} → ${trpcCode}`).toBe(status);
    }
  });
});

/** A procedure that throws what it is given, served the way the dashboard's route serves appRouter. */
const failing = router({
  fail: publicProcedure.query((): never => {
    throw thrown;
  }),
});
let thrown: unknown;

async function answerTo(error: unknown): Promise<{ status: number; body: any }> {
  thrown = error;
  const res = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req: new Request("http://localhost/api/trpc/fail"),
    router: failing,
    createContext: () => ({ requestId: "req_test", ip: "127.0.0.1", authorization: null }),
  });
  return { status: res.status, body: await res.json() };
}

describe("the tRPC error formatter", () => {
  it("answers a rate-limited procedure with TOO_MANY_REQUESTS and 429, our code kept in appError", async () => {
    const { status, body } = await answerTo(new AppError("RATE_LIMITED", undefined, { retryAfter: 3 }));
    expect(status).toBe(429);
    expect(body.error.code).toBe(TRPC_ERROR_CODES_BY_KEY.TOO_MANY_REQUESTS);
    expect(body.error.code).not.toBe(TRPC_ERROR_CODES_BY_KEY.INTERNAL_SERVER_ERROR);
    expect(body.error.data).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      httpStatus: 429,
      appError: { code: "RATE_LIMITED", message: "Too many requests; retry later." },
    });
  });

  it("answers every code of the error table with the tRPC code and HTTP status of its status", async () => {
    for (const [code, status] of Object.entries(ERROR_STATUS) as [ErrorCode, number][]) {
      const answer = await answerTo(new AppError(code));
      const trpcCode = (TRPC_CODE_OF_STATUS as Record<number, TRPC_ERROR_CODE_KEY>)[status]!;
      expect(answer.status, code).toBe(status);
      expect(answer.body.error.code, code).toBe(TRPC_ERROR_CODES_BY_KEY[trpcCode]);
      expect(answer.body.error.data, code).toMatchObject({ code: trpcCode, httpStatus: status, appError: { code } });
    }
  });

  it("keeps an unexpected failure an internal error, with nothing of it in the answer", async () => {
    const { status, body } = await answerTo(new Error('relation "Account" does not exist'));
    expect(status).toBe(500);
    expect(body.error.code).toBe(TRPC_ERROR_CODES_BY_KEY.INTERNAL_SERVER_ERROR);
    expect(body.error.data).toMatchObject({
      code: "INTERNAL_SERVER_ERROR",
      httpStatus: 500,
      appError: { code: "INTERNAL" },
    });
    expect(JSON.stringify(body)).not.toMatch(/relation|stack/);
  });
});
