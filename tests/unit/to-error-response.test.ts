import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError } from "../../src/server/errors/app-error";
import { ERROR_STATUS } from "../../src/server/errors/error-codes";
import { toErrorResponse } from "../../src/server/errors/to-error-response";

describe("error mapper", () => {
  it("maps every AppError code to its status and the envelope", () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      const mapped = toErrorResponse(new AppError(code as keyof typeof ERROR_STATUS));
      expect(mapped.status).toBe(status);
      expect(mapped.body.error.code).toBe(code);
      expect(mapped.body.error.message.length).toBeGreaterThan(0);
      expect(mapped.body.error).not.toHaveProperty("details");
    }
  });

  it("turns a ZodError into VALIDATION_FAILED with paths", () => {
    const result = z
      .object({ email: z.string().email(), nested: z.object({ n: z.number() }) })
      .safeParse({ email: "x", nested: { n: "1" } });
    const mapped = toErrorResponse(result.error);
    expect(mapped.status).toBe(400);
    expect(mapped.body.error.code).toBe("VALIDATION_FAILED");
    expect(mapped.body.error.details?.map((d) => d.path).sort()).toEqual(["email", "nested.n"]);
  });

  it("unwraps tRPC's input errors and the AppErrors procedures throw", () => {
    const zodError = z.object({ a: z.string() }).safeParse({}).error!;
    expect(toErrorResponse(new TRPCError({ code: "BAD_REQUEST", cause: zodError })).body.error.details?.[0]?.path).toBe(
      "a",
    );
    const wrapped = new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: new AppError("NUMBER_TAKEN") });
    expect(toErrorResponse(wrapped).status).toBe(409);
  });

  it("treats an output that fails its schema as our bug: 500, no details", () => {
    const zodError = z.object({ a: z.string() }).safeParse({}).error!;
    const mapped = toErrorResponse(new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: zodError }));
    expect(mapped.status).toBe(500);
    expect(mapped.body.error).toEqual({ code: "INTERNAL", message: "Internal server error." });
  });

  it("hides the internals of unexpected errors", () => {
    const mapped = toErrorResponse(new Error('relation "Account" does not exist at SELECT * FROM secret'));
    expect(mapped.status).toBe(500);
    expect(mapped.unexpected).toBe(true);
    expect(JSON.stringify(mapped.body)).not.toMatch(/relation|SELECT|stack/);
  });

  it("sets Retry-After for rate limits, rounded up to whole seconds", () => {
    const mapped = toErrorResponse(new AppError("RATE_LIMITED", undefined, { retryAfter: 2.2 }));
    expect(mapped.status).toBe(429);
    expect(mapped.headers["retry-after"]).toBe("3");
  });

  it("maps Prisma's record-not-found to 404", () => {
    const err = Object.assign(new Error("No record"), { name: "PrismaClientKnownRequestError", code: "P2025" });
    expect(toErrorResponse(err).status).toBe(404);
  });
});
